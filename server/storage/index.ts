/**
 * The storage entry point: SQLite in the data dir by default, PostgreSQL when a database URL is
 * given. Both open the one way below (connect, migrate, wrap in the dialect-neutral core) and
 * come back ready. Settings come from the caller (server/config.ts reads the environment),
 * never from here.
 */
import type { Dialect } from "./dialect.js";
import { SqlStorage, type WriteTurn } from "./sql-storage.js";
import type { Storage } from "./types.js";

export type { Storage } from "./types.js";
export { SqlStorage, type WriteTurn } from "./sql-storage.js";
export { parseIpSearch } from "./ip-bytes.js";
export { conversionDataJson, conversionJson, conversionParts } from "./rows.js";
export type { LocationPart, RecordParts } from "./record-codec.js";
export { StorageConfigError } from "./config-error.js";

export interface StorageOptions {
  dataDir: string;
  /** `postgres://…`; selects PostgreSQL */
  databaseUrl?: string;
  /** PostgreSQL pool size (default 10) */
  poolSize?: number;
  /** PostgreSQL schema (default: the URL's `?schema=`, else `public`) */
  schema?: string;
  /** SQLite: write conversions on a thread of their own, off the event loop */
  sqliteWriterThread?: boolean;
  /** SQLite: read the list's counts and pages on a thread of their own, off the event loop */
  sqliteReaderThread?: boolean;
  /** taken around every group commit when several processes write one SQLite file (`serve --workers`) */
  writeTurn?: WriteTurn;
}

export async function createStorage(options: StorageOptions): Promise<Storage> {
  return new SqlStorage(await openDialect(options), { writeTurn: options.databaseUrl ? undefined : options.writeTurn });
}

/** The backend's dialect alone, connected and migrated (the dialect tests speak to it directly). */
export async function openDialect(options: StorageOptions): Promise<Dialect> {
  const dialect = await connect(options);
  try {
    await dialect.migrate();
  } catch (error) {
    await dialect.close();
    throw error;
  }
  return dialect;
}

// A backend's dialect module (and better-sqlite3's native binding with SQLite's) loads only when chosen.
async function connect(options: StorageOptions): Promise<Dialect> {
  if (options.databaseUrl) {
    const { openPostgresDialect } = await import("./postgres/dialect.js");
    return openPostgresDialect({ url: options.databaseUrl, poolSize: options.poolSize, schema: options.schema });
  }
  const { connectSqlite } = await import("./sqlite/dialect.js");
  return connectSqlite({ dataDir: options.dataDir, writerThread: options.sqliteWriterThread, readerThread: options.sqliteReaderThread });
}
