import { describe, expect, it } from "vitest";
import { DEFAULT_PROBES } from "./smoke-test.js";
import { loadUpdateSettings, parseInterval, parseProbes } from "./settings.js";
import { candidates, monthsToTry } from "./sources.js";

describe("update settings", () => {
  it("defaults to no schedule (the operator asks), DB-IP as the source, stale after 45 days", () => {
    expect(loadUpdateSettings({})).toMatchObject({ everyMs: null, source: "dbip", mirrorUrl: null, maxAgeDays: 45, probes: DEFAULT_PROBES });
    expect(loadUpdateSettings({ IPATLAS_UPDATE_EVERY: "24h" }).everyMs).toBe(86_400_000);
  });

  it("reads intervals, and off", () => {
    expect(parseInterval("x", "30m")).toBe(1_800_000);
    expect(parseInterval("x", "7d")).toBe(604_800_000);
    expect(parseInterval("x", " 1.5h ")).toBe(5_400_000);
    for (const off of ["off", "0", "never", "OFF"]) expect(parseInterval("x", off)).toBeNull();
    expect(() => parseInterval("--update-every", "daily")).toThrow('--update-every must be a duration like 24h, 30m or 7d, or "off"; got "daily"');
    expect(() => parseInterval("x", "0.1s")).toThrow(/at least 1s/);
    expect(loadUpdateSettings({ IPATLAS_UPDATE_EVERY: "12h" }, { updateEvery: "off" }).everyMs).toBeNull();
  });

  it("takes MaxMind when its credentials are set, and refuses half of them", () => {
    const maxmind = loadUpdateSettings({ IPATLAS_MAXMIND_ACCOUNT_ID: "1", IPATLAS_MAXMIND_LICENSE_KEY: "k" });
    expect(maxmind).toMatchObject({ source: "maxmind", maxmindEditions: { city: "GeoLite2-City", asn: "GeoLite2-ASN" } });
    expect(() => loadUpdateSettings({ IPATLAS_MAXMIND_ACCOUNT_ID: "1" })).toThrow(/go together/);
    expect(() => loadUpdateSettings({ IPATLAS_UPDATE_SOURCE: "maxmind" })).toThrow(/needs IPATLAS_MAXMIND_ACCOUNT_ID/);
    expect(() => loadUpdateSettings({ IPATLAS_UPDATE_MIRROR: "ftp://x" })).toThrow(/must be an http\(s\) URL/);
    expect(() => loadUpdateSettings({ IPATLAS_DATA_MAX_AGE_DAYS: "0" })).toThrow(/between 1 and 3650/);
  });

  it("reads lookup-test addresses, keeping the defaults for a role without any", () => {
    expect(parseProbes("8.8.8.8=us, 2001:db8::1=AS64500")).toEqual({ city: [{ ip: "8.8.8.8", country: "US" }], asn: [{ ip: "2001:db8::1", asn: 64500 }] });
    expect(parseProbes("8.8.8.8=US").asn).toBe(DEFAULT_PROBES.asn);
    expect(() => parseProbes("8.8.8.8:US")).toThrow(/look like 8.8.8.8=US/);
  });

  it("tries this month's DB-IP file, then the month before's, across a year's end", () => {
    expect(monthsToTry(new Date("2027-01-01T00:30:00Z"))).toEqual(["2027-01", "2026-12"]);
    expect(candidates("asn", loadUpdateSettings({}), new Date("2026-11-23T00:00:00Z")).map((c) => c.url)).toEqual([
      "https://download.db-ip.com/free/dbip-asn-lite-2026-11.mmdb.gz",
      "https://download.db-ip.com/free/dbip-asn-lite-2026-10.mmdb.gz",
    ]);
    const [maxmind] = candidates("city", loadUpdateSettings({ IPATLAS_MAXMIND_ACCOUNT_ID: "42", IPATLAS_MAXMIND_LICENSE_KEY: "key" }), new Date());
    expect(maxmind).toMatchObject({
      url: "https://download.maxmind.com/geoip/databases/GeoLite2-City/download?suffix=tar.gz",
      sha256Url: "https://download.maxmind.com/geoip/databases/GeoLite2-City/download?suffix=tar.gz.sha256",
      authorization: `Basic ${Buffer.from("42:key").toString("base64")}`,
    });
  });
});
