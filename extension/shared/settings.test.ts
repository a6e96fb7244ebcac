import { describe, expect, it } from "vitest";
import { memoryStorageArea } from "./storage-area.js";
import {
  DEFAULT_SETTINGS,
  isActiveOn,
  loadSettings,
  normalizeSite,
  sanitizeSettings,
  withSiteEnabled,
  writeSettings,
} from "./settings.js";

describe("settings", () => {
  it("loads the defaults from empty storage", async () => {
    expect(await loadSettings(memoryStorageArea())).toEqual(DEFAULT_SETTINGS);
  });

  it("writes the whole settings in the call itself, reading nothing first", async () => {
    const area = memoryStorageArea();
    const asked: string[] = [];
    const watched = {
      get: (keys: string | string[] | null) => (asked.push("get"), area.get(keys)),
      set: (items: Record<string, unknown>) => (asked.push("set"), area.set(items)),
      remove: area.remove,
    };
    const saving = writeSettings(watched, { ...DEFAULT_SETTINGS, serverUrl: "http://127.0.0.1:8787/ " });
    expect(asked).toEqual(["set"]);
    expect(await saving).toMatchObject({ serverUrl: "http://127.0.0.1:8787/" });
    expect(await loadSettings(area)).toEqual(await saving);
  });

  it("repairs garbage: clamps the TTL, drops non-hosts, dedups sites", () => {
    const settings = sanitizeSettings({ cacheTtlMinutes: -5, disabledSites: ["WWW.Example.com", "example.com", 42, ""], enabled: "yes" });
    expect(settings).toMatchObject({ cacheTtlMinutes: 1, disabledSites: ["example.com"], enabled: true });
    expect(sanitizeSettings({ cacheTtlMinutes: "abc" }).cacheTtlMinutes).toBe(DEFAULT_SETTINGS.cacheTtlMinutes);
  });

  it("normalizes sites from URLs or host names", () => {
    expect(normalizeSite("https://www.Wikipedia.org/wiki/IP")).toBe("wikipedia.org");
    expect(normalizeSite("logs.internal:8080")).toBe("logs.internal");
    expect(normalizeSite("   ")).toBeNull();
  });

  it("is off globally or per site", () => {
    const on = { ...DEFAULT_SETTINGS, disabledSites: withSiteEnabled(DEFAULT_SETTINGS, "www.example.com", false) };
    expect(on.disabledSites).toEqual(["example.com"]);
    expect(isActiveOn(on, "example.com")).toBe(false);
    expect(isActiveOn(on, "other.org")).toBe(true);
    expect(isActiveOn({ ...on, enabled: false }, "other.org")).toBe(false);
    expect(withSiteEnabled(on, "example.com", true)).toEqual([]);
  });
});
