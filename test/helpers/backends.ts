/**
 * The storage backends every suite runs against: SQLite always, PostgreSQL too when
 * TEST_DATABASE_URL is set. Each PostgreSQL use gets a fresh schema (IPATLAS_DB_SCHEMA) so test
 * runs and files never see each other's rows; `dispose` drops it.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import type { StorageOptions } from "../../server/storage/index.js";
import { makeDataDir } from "./server.js";

export interface Backend {
  name: "sqlite" | "postgres";
  /** env for a server or CLI process (DATABASE_URL, IPATLAS_DB_SCHEMA), empty for SQLite */
  env: Record<string, string>;
  /** options for createStorage straight in the test process */
  storageOptions(dataDir?: string): StorageOptions;
  /** drops what this backend created */
  dispose(): Promise<void>;
}

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;

export const backendNames: Array<Backend["name"]> = TEST_DATABASE_URL ? ["sqlite", "postgres"] : ["sqlite"];

/** A fresh backend of that kind (for PostgreSQL: a new empty schema). */
export async function createBackend(name: Backend["name"]): Promise<Backend> {
  if (name === "sqlite") {
    return { name, env: {}, storageOptions: (dataDir = makeDataDir()) => ({ dataDir }), dispose: async () => {} };
  }
  if (!TEST_DATABASE_URL) throw new Error("TEST_DATABASE_URL is not set");
  const schema = `ipatlas_test_${process.pid}_${randomBytes(4).toString("hex")}`;
  await adminQuery(`CREATE SCHEMA ${schema}`);
  return {
    name,
    env: { DATABASE_URL: TEST_DATABASE_URL, IPATLAS_DB_SCHEMA: schema },
    storageOptions: (dataDir = makeDataDir()) => ({ dataDir, databaseUrl: TEST_DATABASE_URL, schema }),
    dispose: async () => void (await adminQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)),
  };
}

/** Whether the test server runs with autovacuum off (the storage's upkeep warning, docs/storage.md). */
export async function serverAutovacuumOff(): Promise<boolean> {
  return (await adminQuery<{ value: string }>("SELECT current_setting('autovacuum') AS value"))?.value === "off";
}

/** One statement on the test server, outside any schema's pool; its first row. */
export async function adminQuery<T = Record<string, unknown>>(sql: string): Promise<T | undefined> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    return (await client.query(sql)).rows[0] as T | undefined;
  } finally {
    await client.end();
  }
}
