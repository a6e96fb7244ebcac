/** Websites: an origin pattern (docs/api.md#keys-and-origins) with its own public key. */
import { parseOriginPattern } from "../../lib/origin/index.js";
import type { Storage } from "../storage/types.js";
import { generateKey } from "../keys/key-values.js";
import { ServiceError } from "../service-error.js";
import { keyView } from "../keys/key-admin.js";
import { websiteView } from "./views.js";
import { validId } from "../service-input.js";

export function websiteServices(storage: Storage, onChange: () => void, requireProject: (id: unknown) => Promise<{ id: string }>) {
  return {
    async addWebsite(input: { projectId: unknown; origin: unknown }) {
      const parsed = parseOriginPattern(typeof input.origin === "string" ? input.origin : "");
      if (!parsed.ok) throw new ServiceError("invalid", parsed.error);
      const project = await requireProject(input.projectId);
      const existing = await storage.listWebsites(project.id);
      if (existing.some((website) => website.origin === parsed.normalized)) {
        throw new ServiceError("invalid", `Website already added: ${parsed.normalized}`);
      }
      const website = await storage.createWebsite({ projectId: project.id, origin: parsed.normalized });
      const generated = generateKey("public");
      const key = await storage.createKey({
        projectId: project.id,
        name: parsed.normalized,
        kind: "public",
        hash: generated.hash,
        prefix: generated.prefix,
        websiteId: website.id,
      });
      onChange();
      return { website: websiteView(website), key: keyView(key), publicKey: generated.value };
    },

    async listWebsites(projectId: unknown) {
      const project = await requireProject(projectId);
      const [websites, keys] = await Promise.all([storage.listWebsites(project.id), storage.listKeys(project.id)]);
      return websites.map((website) => ({
        ...websiteView(website),
        keyPrefix: keys.find((key) => key.websiteId === website.id && !key.revokedAt)?.prefix ?? null,
      }));
    },

    async removeWebsite(websiteId: unknown) {
      const id = validId(websiteId, "Website");
      const website = await storage.getWebsite(id);
      if (!website) throw new ServiceError("not-found", `Website not found: ${id}`);
      // its public keys die with it, whatever the storage does with the row
      for (const key of await storage.listKeys(website.projectId)) {
        if (key.websiteId === website.id && !key.revokedAt) await storage.revokeKey(key.id);
      }
      const removed = await storage.removeWebsite(website.id);
      onChange();
      return { website: websiteView(removed ?? website) };
    },
  };
}
