import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "./config.js";
import { readServerUrl, recordServerUrl, SERVER_URL_FILE, serverBaseUrl } from "./public-url.js";

const dirs: string[] = [];
const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "ipatlas-url-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe("serverBaseUrl", () => {
  it("uses the configured host and port when no server recorded its address", () => {
    const dir = dataDir();
    expect(serverBaseUrl(loadConfig({}, { dataDir: dir }))).toBe("http://127.0.0.1:8787");
  });

  it("points at the address the running server recorded in the data dir", () => {
    const dir = dataDir();
    recordServerUrl(dir, "http://127.0.0.1:8899");
    expect(readServerUrl(dir)).toBe("http://127.0.0.1:8899");
    expect(serverBaseUrl(loadConfig({}, { dataDir: dir }))).toBe("http://127.0.0.1:8899");
  });

  it("lets IPATLAS_PUBLIC_URL win over the recorded address", () => {
    const dir = dataDir();
    recordServerUrl(dir, "http://127.0.0.1:8899");
    expect(serverBaseUrl(loadConfig({ IPATLAS_PUBLIC_URL: "https://geo.example.com/" }, { dataDir: dir }))).toBe("https://geo.example.com");
  });

  it("ignores a recorded file that is not a URL", () => {
    const dir = dataDir();
    writeFileSync(join(dir, SERVER_URL_FILE), '{"url":"javascript:alert(1)"}');
    expect(readServerUrl(dir)).toBeNull();
    writeFileSync(join(dir, SERVER_URL_FILE), "not json");
    expect(readServerUrl(dir)).toBeNull();
  });
});
