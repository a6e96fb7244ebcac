/** For unit tests of key-dependent middlewares: a real SQLite store in a temp dir, its services and key service. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createStorage } from "../storage/index.js";
import { createAdminServices } from "../services/index.js";
import { createKeyService } from "./key-service.js";

export async function openTestKeys() {
  const dir = mkdtempSync(join(tmpdir(), "ipatlas-unit-"));
  const storage = await createStorage({ dataDir: dir });
  const keys = createKeyService(storage, { pollMs: 50 });
  const services = createAdminServices(storage, () => keys.invalidate());
  return {
    storage,
    keys,
    services,
    async dispose() {
      await keys.close();
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
