/** The storage the CLI and the server open: the data dir's SQLite file, or DATABASE_URL. */
import type { Config } from "./config.js";
import { createStorage, type Storage } from "./storage/index.js";

export function openStorage(config: Config): Promise<Storage> {
  return createStorage({
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl ?? undefined,
    poolSize: config.dbPool,
    schema: config.dbSchema ?? undefined,
  });
}
