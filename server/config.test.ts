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
      sqliteWriterThread: true,
      sqliteReaderThread: true,
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
    expect(loadConfig({ IPATLAS_SQLITE_WRITER_THREAD: "0" }).sqliteWriterThread).toBe(false);
    expect(loadConfig({ IPATLAS_SQLITE_READER_THREAD: "0" }).sqliteReaderThread).toBe(false);
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

describe("server limits", () => {
  it("has the documented defaults, and no per-address connection limit behind a proxy", () => {
    expect(loadConfig({}).limits).toEqual({
      headersTimeoutMs: 20_000,
      requestTimeoutMs: 60_000,
      keepAliveTimeoutMs: 5_000,
      maxHeaderBytes: 16_384,
      maxForwardedForBytes: 1_024,
      maxConnectionsPerAddress: 256,
      connectionLimitExempt: ["127.0.0.0/8", "::1/128"],
      signInQueuePerAddress: 3,
    });
    expect(loadConfig({ IPATLAS_TRUST_PROXY: "1" }).limits.maxConnectionsPerAddress).toBe(0);
    expect(loadConfig({ IPATLAS_TRUST_PROXY: "1", IPATLAS_MAX_CONNECTIONS_PER_ADDRESS: "50" }).limits.maxConnectionsPerAddress).toBe(50);
    expect(loadConfig({ IPATLAS_CONNECTION_LIMIT_EXEMPT: "none" }).limits.connectionLimitExempt).toEqual([]);
    expect(loadConfig({ IPATLAS_CONNECTION_LIMIT_EXEMPT: "10.0.0.0/8, 2001:db8::/32" }).limits.connectionLimitExempt).toEqual(["10.0.0.0/8", "2001:db8::/32"]);
  });

  it("refuses limits that cannot work", () => {
    expect(() => loadConfig({ IPATLAS_HEADERS_TIMEOUT_MS: "90000" })).toThrow(/IPATLAS_HEADERS_TIMEOUT_MS/);
    expect(() => loadConfig({ IPATLAS_CONNECTION_LIMIT_EXEMPT: "localhost" })).toThrow(/IPATLAS_CONNECTION_LIMIT_EXEMPT/);
    expect(() => loadConfig({ IPATLAS_SIGN_IN_QUEUE: "0" })).toThrow(/IPATLAS_SIGN_IN_QUEUE/);
  });
});

describe("publicBaseUrl", () => {
  it("prefers IPATLAS_PUBLIC_URL, else host and port", () => {
    expect(publicBaseUrl(loadConfig({}), 1234)).toBe("http://127.0.0.1:1234");
    expect(publicBaseUrl(loadConfig({ IPATLAS_PUBLIC_URL: "https://x.test" }), 1234)).toBe("https://x.test");
  });
});
