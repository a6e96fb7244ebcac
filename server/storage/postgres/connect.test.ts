import { describe, expect, it } from "vitest";
import { createStorage } from "../index.js";
import { StorageConfigError } from "../config-error.js";

describe("PostgreSQL connection errors are one clear sentence", () => {
  const open = (databaseUrl: string, extra: { schema?: string; poolSize?: number } = {}) =>
    createStorage({ dataDir: "/nonexistent", databaseUrl, ...extra });

  it("rejects a malformed URL", async () => {
    await expect(open("not a url")).rejects.toThrow(
      new StorageConfigError("DATABASE_URL is malformed: expected postgres://user:password@host:port/database"),
    );
    await expect(open("mysql://root@127.0.0.1/db")).rejects.toThrow("DATABASE_URL must start with postgres:// (got mysql://)");
  });

  it("rejects a schema that is not a plain identifier and a bad pool size", async () => {
    await expect(open("postgres://u@127.0.0.1/db", { schema: "x; DROP TABLE y" })).rejects.toThrow(
      'Database schema "x; DROP TABLE y" is not a plain identifier',
    );
    await expect(open("postgres://u@127.0.0.1/db", { poolSize: 0 })).rejects.toThrow("Database pool size must be a positive integer, got 0");
  });

  it("names the server it could not reach, without the password", async () => {
    const error = await open("postgres://user:secret@127.0.0.1:1/db").catch((e: Error) => e);
    expect(error).toBeInstanceOf(StorageConfigError);
    expect((error as Error).message).toMatch(/^Cannot connect to PostgreSQL at 127\.0\.0\.1:1\/db: .*ECONNREFUSED/);
    expect((error as Error).message).not.toContain("secret");
  });
});
