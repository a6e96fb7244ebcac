/** The storage the CLI and the server open: the data dir's SQLite file, or DATABASE_URL. */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "./config.js";
import { createStorage, storageOptionsFromEnv, type Storage } from "./storage/index.js";

export function openStorage(config: Config, env: NodeJS.ProcessEnv): Promise<Storage> {
  return createStorage({ ...storageOptionsFromEnv(config.dataDir, env), databaseUrl: config.databaseUrl ?? undefined });
}

/**
 * The warning to print before a command creates a new, empty SQLite database, or null when the
 * database exists (or is PostgreSQL). Run from another directory, `./data` is a different, empty
 * data dir: without this line `project list` would answer "No projects." as if that were true.
 */
export async function newDatabaseWarning(config: Config): Promise<string | null> {
  if (config.databaseUrl) return null;
  const { SQLITE_FILE } = await import("./storage/sqlite/storage.js");
  if (existsSync(join(config.dataDir, SQLITE_FILE))) return null;
  return (
    `ipatlas: warning: no database in ${config.dataDir}; creating a new, empty one ` +
    `(use --data-dir or IPATLAS_DATA_DIR for an existing data dir)`
  );
}
