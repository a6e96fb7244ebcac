import { describe, expect, it } from "vitest";
import { resolve } from "node:path";
import { ConfigError, loadConfig, publicBaseUrl } from "./config.js";

describe("loadConfig", () => {
  it("has the documented defaults", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      dataDir: resolve("./data"),
      port: 8787,
      host: "127.0.0.1",
      publicUrl: null,
      trustProxy: 0,
      publicRateLimit: 60,
      databaseUrl: null,
      dbPool: 10,
      dbSchema: null,
      logLevel: "info",
      benchRoutes: false,
    });
  });

  it("reads the environment and lets flags win", () => {
    const config = loadConfig(
      { IPATLAS_PORT: "9000", IPATLAS_DATA_DIR: "/tmp/a", IPATLAS_TRUST_PROXY: "2", IPATLAS_PUBLIC_URL: "https://geo.example.com/" },
      { port: "0", dataDir: "/tmp/b" },
    );
    expect(config.port).toBe(0);
    expect(config.dataDir).toBe("/tmp/b");
    expect(config.trustProxy).toBe(2);
    expect(config.publicUrl).toBe("https://geo.example.com");
    expect(loadConfig({ IPATLAS_DB_POOL: "4", IPATLAS_DB_SCHEMA: "tenant_a" })).toMatchObject({ dbPool: 4, dbSchema: "tenant_a" });
  });

  it("refuses values that are not what they claim to be", () => {
    expect(() => loadConfig({ IPATLAS_PORT: "abc" })).toThrow(ConfigError);
    expect(() => loadConfig({}, { port: "70000" })).toThrow(/--port/);
    expect(() => loadConfig({ IPATLAS_LOG_LEVEL: "loud" })).toThrow(/IPATLAS_LOG_LEVEL/);
    expect(() => loadConfig({ IPATLAS_PUBLIC_RATE_LIMIT: "-1" })).toThrow(/IPATLAS_PUBLIC_RATE_LIMIT/);
    expect(() => loadConfig({ IPATLAS_DB_POOL: "0" })).toThrow(/IPATLAS_DB_POOL/);
    expect(() => loadConfig({ IPATLAS_DB_POOL: "ten" })).toThrow(/IPATLAS_DB_POOL/);
  });
});

describe("publicBaseUrl", () => {
  it("prefers IPATLAS_PUBLIC_URL, else host and port", () => {
    expect(publicBaseUrl(loadConfig({}), 1234)).toBe("http://127.0.0.1:1234");
    expect(publicBaseUrl(loadConfig({ IPATLAS_PUBLIC_URL: "https://x.test" }), 1234)).toBe("https://x.test");
  });
});
