/**
 * The storage entry point: SQLite in the data dir by default, PostgreSQL when a database URL is
 * given. Either is opened the same way and comes back migrated and ready. Settings come from the
 * caller (server/config.ts reads the environment), never from here.
 */
import type { Storage } from "./types.js";

export type { Storage } from "./types.js";
export { parseIpSearch } from "./ip-bytes.js";
export { StorageConfigError } from "./postgres/connect.js";

export interface StorageOptions {
  dataDir: string;
  /** `postgres://…`; selects PostgreSQL */
  databaseUrl?: string;
  /** PostgreSQL pool size (default 10) */
  poolSize?: number;
  /** PostgreSQL schema (default: the URL's `?schema=`, else `public`) */
  schema?: string;
}

export async function createStorage(options: StorageOptions): Promise<Storage> {
  if (options.databaseUrl) {
    const { openPostgres } = await import("./postgres/dialect.js");
    return openPostgres({ url: options.databaseUrl, poolSize: options.poolSize, schema: options.schema });
  }
  const { openSqlite } = await import("./sqlite/dialect.js");
  return openSqlite({ dataDir: options.dataDir });
}
