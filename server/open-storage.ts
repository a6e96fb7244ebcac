/** The storage the CLI and the server open: the data dir's SQLite file, or DATABASE_URL. */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "./config.js";
import { createStorage, type Storage, type WriteTurn } from "./storage/index.js";

/**
 * The SQLite file holds key hashes, names and every stored conversion: readable by its owner
 * only. It is created 0600 before SQLite opens it (SQLite gives its -wal and -shm files the same
 * mode), a looser existing file is tightened, and a data dir made here is 0700.
 */
async function privateSqliteFile(dataDir: string): Promise<void> {
  const { SQLITE_FILE } = await import("./storage/sqlite/dialect.js");
  if (!existsSync(dataDir)) mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, SQLITE_FILE);
  closeSync(openSync(path, "a", 0o600));
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    try {
      chmodSync(file, 0o600);
    } catch {
      // -wal and -shm exist only while a connection is open
    }
  }
}

export async function openStorage(config: Config, writeTurn?: WriteTurn): Promise<Storage> {
  const options = {
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl ?? undefined,
    poolSize: config.dbPool,
    schema: config.dbSchema ?? undefined,
    sqliteWriterThread: config.sqliteWriterThread,
    sqliteReaderThread: config.sqliteReaderThread,
    writeTurn,
  };
  if (!options.databaseUrl) await privateSqliteFile(config.dataDir);
  return createStorage(options);
}

/**
 * The warning to print before a command creates a new, empty SQLite database, or null when the
 * database exists (or is PostgreSQL). Run from another directory, `./data` is a different, empty
 * data dir: without this line `project list` would answer "No projects." as if that were true.
 */
export async function newDatabaseWarning(config: Config): Promise<string | null> {
  if (config.databaseUrl) return null;
  const { SQLITE_FILE } = await import("./storage/sqlite/dialect.js");
  if (existsSync(join(config.dataDir, SQLITE_FILE))) return null;
  return (
    `ipatlas: warning: no database in ${config.dataDir}; creating a new, empty one ` +
    `(use --data-dir or IPATLAS_DATA_DIR for an existing data dir)`
  );
}
