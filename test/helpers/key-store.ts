/**
 * Starts what key-dependent middleware tests need: a real SQLite store in a temp dir, its admin
 * services and key cache; `openTestProject` adds a project with a secret key and a website's
 * public key.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createStorage } from "../../server/storage/index.js";
import { createAdminServices } from "../../server/services/index.js";
import { createKeyService } from "../../server/keys/auth-cache.js";

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

/** `openTestKeys` plus project "p" with its secret key, and a website for `origin` with its public key. */
export async function openTestProject(origin: string) {
  const fixture = await openTestKeys();
  const created = await fixture.services.createProject({ name: "p" });
  const { publicKey } = await fixture.services.addWebsite({ projectId: created.project.id, origin });
  return { fixture, secretKey: created.secretKey, publicKey };
}
