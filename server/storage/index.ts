/**
 * The storage entry point: SQLite in the data dir by default, PostgreSQL when a database URL is
 * given. The result is migrated and ready.
 */
import type { Storage } from "./types.js";

export type { Storage } from "./types.js";
export { parseIpSearch } from "./ip-bytes.js";
export { StorageConfigError } from "./postgres/connect.js";

export interface StorageOptions {
  dataDir: string;
  /** `postgres://…`; selects PostgreSQL */
  databaseUrl?: string;
  /** PostgreSQL pool size (default: IPATLAS_DB_POOL, else 10) */
  poolSize?: number;
  /** PostgreSQL schema (default: IPATLAS_DB_SCHEMA, else the URL's `?schema=`, else `public`) */
  schema?: string;
}

/** Options from the environment: DATABASE_URL, IPATLAS_DB_POOL, IPATLAS_DB_SCHEMA. */
export function storageOptionsFromEnv(dataDir: string, env: NodeJS.ProcessEnv = process.env): StorageOptions {
  const pool = env.IPATLAS_DB_POOL ? Number(env.IPATLAS_DB_POOL) : undefined;
  if (pool !== undefined && !(Number.isInteger(pool) && pool >= 1)) {
    throw new Error(`IPATLAS_DB_POOL must be a positive integer, got "${env.IPATLAS_DB_POOL}"`);
  }
  return {
    dataDir,
    databaseUrl: env.DATABASE_URL || undefined,
    poolSize: pool,
    schema: env.IPATLAS_DB_SCHEMA || undefined,
  };
}

export async function createStorage(options: StorageOptions): Promise<Storage> {
  if (options.databaseUrl) {
    const fromEnv = storageOptionsFromEnv(options.dataDir);
    const { openPostgres } = await import("./postgres/storage.js");
    return openPostgres({
      url: options.databaseUrl,
      poolSize: options.poolSize ?? fromEnv.poolSize,
      schema: options.schema ?? fromEnv.schema,
    });
  }
  const { SqliteStorage } = await import("./sqlite/storage.js");
  return new SqliteStorage({ dataDir: options.dataDir });
}
