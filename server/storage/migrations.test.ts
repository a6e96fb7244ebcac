/**
 * Migration 2 (ip folded to lower case) on a database left at version 1 with a mixed-case row:
 * the row reads back exactly and prefix search finds it, on every backend. Migration 3 (prefix
 * search on ip_key, text index only for rows without a key) on a database left at version 2, and
 * with it migrations 4 (conversion ids numbered per project) and 6 (the ip_key index in blocks of
 * row ids, on both backends).
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bareIpObject } from "../../lib/schemas/ip-object.js";
import { backendNames, createBackend, type Backend } from "../../test/helpers/backends.js";
import { parseIpSearch } from "./ip-bytes.js";
import { pendingMigrations } from "./migrations.js";
import { createStorage, type StorageOptions } from "./index.js";
import type { PostgresDialect } from "./postgres/dialect.js";
import type { SqlStorage } from "./sql-storage.js";
import type { SqliteDialect } from "./sqlite/dialect.js";
import type { Storage } from "./types.js";

const sqliteDb = (storage: Storage) => (storage as SqlStorage<SqliteDialect>).dialect.db;
const postgresPool = (storage: Storage) => (storage as SqlStorage<PostgresDialect>).dialect.pool;

/** Puts the database back to schema version 3: conversion ids were the global row id. */
const BACK_TO_V3 = [
  "DELETE FROM schema_migrations WHERE version >= 4",
  // SQLite's migration 5
  "DROP TABLE IF EXISTS open_bulks",
  "ALTER TABLE conversions DROP COLUMN seq",
  "ALTER TABLE projects DROP COLUMN conversions",
];

/** Puts the database back to schema version 1: mixed-case ip, expression index, no extra.i. */
const BACK_TO_V1 = [
  ...BACK_TO_V3,
  "UPDATE conversions SET ip = 'MiXed Input', extra = NULL WHERE ip = 'mixed input'",
  "DELETE FROM schema_migrations WHERE version >= 2",
  "DROP INDEX conversions_ip_unkeyed",
  "CREATE INDEX conversions_ip_text ON conversions(project, lower(ip))",
];

/** Puts the database back to schema version 2: a text index on every row, no partial one. */
const BACK_TO_V2 = [
  ...BACK_TO_V3,
  "DELETE FROM schema_migrations WHERE version >= 3",
  "DROP INDEX conversions_ip_unkeyed",
  "CREATE INDEX conversions_ip_text ON conversions(project, ip)",
];

async function indexNames(storage: Storage): Promise<string[]> {
  if (storage.kind === "sqlite") {
    const sql = "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'conversions' ORDER BY name";
    return sqliteDb(storage).prepare(sql).pluck().all() as string[];
  }
  const sql = "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'conversions' ORDER BY indexname";
  return (await postgresPool(storage).query(sql)).rows.map((row: { indexname: string }) => row.indexname);
}

/** the definition of the ip_key index, as the database gives it */
async function ipKeyIndex(storage: Storage): Promise<string> {
  if (storage.kind === "sqlite") return sqliteDb(storage).prepare("SELECT sql FROM sqlite_master WHERE name = 'conversions_ip_key'").pluck().get() as string;
  const sql = "SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND indexname = 'conversions_ip_key'";
  return (await postgresPool(storage).query(sql)).rows[0].indexdef as string;
}

async function runSql(storage: Storage, statements: string[]): Promise<void> {
  if (storage.kind === "sqlite") for (const sql of statements) sqliteDb(storage).exec(sql);
  else for (const sql of statements) await postgresPool(storage).query(sql);
}

describe("pendingMigrations", () => {
  const all = [1, 2, 3].map((version) => ({ version, name: `m${version}`, sql: "" }));
  it("returns the missing ones in order and refuses a newer database", () => {
    expect(pendingMigrations(all, [1]).map((m) => m.version)).toEqual([2, 3]);
    expect(pendingMigrations(all, [1, 2, 3])).toEqual([]);
    expect(() => pendingMigrations(all, [1, 2, 3, 4])).toThrow("The database has schema version 4, newer than this IP Atlas (3)");
  });
});

describe.each(backendNames)("migration 3 on %s", (name) => {
  let backend: Backend;

  beforeAll(async () => {
    backend = await createBackend(name);
  });
  afterAll(() => backend?.dispose());

  it("replaces the text index with a partial one; prefix search still finds addresses and invalid inputs", async () => {
    const options = backend.storageOptions();
    const first = await createStorage(options);
    const project = await first.createProject({ name: "m3", plan: "scale" });
    const now = Date.now();
    const conversion = (ip: string, type: "ipv4" | "ipv6" | null) => ({
      uniqueId: randomUUID(),
      status: type ? ("failed" as const) : ("invalid-ip-address" as const),
      data: bareIpObject(ip, type),
      startedAt: now,
      completedAt: now,
    });
    const stored = [conversion("10.1.2.3", "ipv4"), conversion("2001:db8::7", "ipv6"), conversion("::ffff:10.1.9.9", "ipv6"), conversion("10.1 is not an ip", null)];
    // another tenant's rows first: before migration 4 they moved this project's ids
    const other = await first.createProject({ name: "m3-other", plan: "scale" });
    await first.commitConversions({ projectId: other.id, period: "2026-11", limit: null, conversions: [conversion("10.9.9.9", "ipv4")] });
    await first.commitConversions({ projectId: project.id, period: "2026-11", limit: null, conversions: stored });
    await runSql(first, BACK_TO_V2);
    expect(await indexNames(first)).toContain("conversions_ip_text");
    await first.close();

    const migrated = await createStorage(options);
    try {
      const indexes = await indexNames(migrated);
      expect(indexes).toContain("conversions_ip_unkeyed");
      expect(indexes).not.toContain("conversions_ip_text");
      // migration 6: keys ordered by their row's block of ids first
      expect(await ipKeyIndex(migrated)).toMatch(/\(?id >> 16\)?\)?, ip_key\)/);
      const search = async (text: string) =>
        (await migrated.listConversions({ projectId: project.id, offset: 0, limit: 10, ip: parseIpSearch(text) })).conversions.map((c) => c.data.ip);
      expect(await search("10.1")).toEqual(["10.1 is not an ip", "10.1.2.3"]);
      expect(await search("::FFFF:10.1")).toEqual(["::ffff:10.1.9.9"]);
      expect(await search("2001:db8::")).toEqual(["2001:db8::7"]);
      // migration 4 numbered the rows per project, and numbering goes on from there
      await migrated.commitConversions({ projectId: project.id, period: "2026-11", limit: null, conversions: [conversion("10.2.2.2", "ipv4")] });
      const ids = (await migrated.listConversions({ projectId: project.id, offset: 0, limit: 10 })).conversions.map((c) => c.id);
      expect(ids).toEqual([5, 4, 3, 2, 1]);
    } finally {
      await migrated.close();
    }
  });
});

describe.each(backendNames)("migration 2 on %s", (name) => {
  let backend: Backend;
  let options: StorageOptions;

  beforeAll(async () => {
    backend = await createBackend(name);
    options = backend.storageOptions();
  });
  afterAll(() => backend?.dispose());

  it("keeps a mixed-case input exact and searchable", async () => {
    const first = await createStorage(options);
    const project = await first.createProject({ name: "m", plan: "scale" });
    const uniqueId = randomUUID();
    const now = Date.now();
    await first.commitConversions({
      projectId: project.id,
      period: "2026-11",
      limit: null,
      conversions: [{ uniqueId, status: "invalid-ip-address", data: bareIpObject("MiXed Input", null), startedAt: now, completedAt: now }],
    });
    await runSql(first, BACK_TO_V1);
    await first.close();

    const migrated = await createStorage(options);
    try {
      expect((await migrated.getConversion(project.id, uniqueId))?.data).toStrictEqual(bareIpObject("MiXed Input", null));
      const found = await migrated.listConversions({ projectId: project.id, offset: 0, limit: 10, ip: parseIpSearch("mIxEd") });
      expect(found.conversions.map((c) => c.uniqueId)).toEqual([uniqueId]);
    } finally {
      await migrated.close();
    }
  });
});
