/** The storage the CLI and the server open: the data dir's SQLite file, or DATABASE_URL. */
import type { Config } from "./config.js";
import { createStorage, storageOptionsFromEnv, type Storage } from "./storage/index.js";

export function openStorage(config: Config, env: NodeJS.ProcessEnv): Promise<Storage> {
  return createStorage({ ...storageOptionsFromEnv(config.dataDir, env), databaseUrl: config.databaseUrl ?? undefined });
}
