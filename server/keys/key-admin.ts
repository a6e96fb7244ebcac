/** Secret keys: create, list, roll (new value, old one dead at once), revoke. Rolling works for public keys too. */
import type { ApiKey, Storage } from "../storage/types.js";
import { generateKey } from "./key-values.js";
import { ServiceError } from "../service-error.js";
import { validId, validName } from "../service-input.js";

/** What the CLI (`--json`) and the admin API show of a key: never its hash. */
export const keyView = (key: ApiKey) => ({
  id: key.id,
  name: key.name,
  kind: key.kind,
  prefix: key.prefix,
  projectId: key.projectId,
  websiteId: key.websiteId,
  createdAt: key.createdAt,
  lastUsedAt: key.lastUsedAt,
  revokedAt: key.revokedAt,
});

export type KeyView = ReturnType<typeof keyView>;

export function keyServices(storage: Storage, onChange: () => void, requireProject: (id: unknown) => Promise<{ id: string }>) {
  async function requireKey(keyId: unknown) {
    const id = validId(keyId, "Key");
    const key = await storage.getKey(id);
    if (!key) throw new ServiceError("not-found", `Key not found: ${id}`);
    return key;
  }

  return {
    async createKey(input: { projectId: unknown; name: unknown }) {
      const name = validName(input.name, "Key");
      const project = await requireProject(input.projectId);
      const generated = generateKey("secret");
      const key = await storage.createKey({ projectId: project.id, name, kind: "secret", hash: generated.hash, prefix: generated.prefix });
      onChange();
      return { key: keyView(key), secretKey: generated.value };
    },

    async listKeys(projectId: unknown) {
      const project = await requireProject(projectId);
      return (await storage.listKeys(project.id)).map(keyView);
    },

    async rollKey(keyId: unknown) {
      const key = await requireKey(keyId);
      if (key.revokedAt) throw new ServiceError("invalid", `Key is revoked: ${key.id}`);
      const generated = generateKey(key.kind);
      const rolled = await storage.rollKey(key.id, generated.hash, generated.prefix);
      if (!rolled) throw new ServiceError("not-found", `Key not found: ${key.id}`);
      onChange();
      return key.kind === "secret"
        ? { key: keyView(rolled), secretKey: generated.value }
        : { key: keyView(rolled), publicKey: generated.value };
    },

    async revokeKey(keyId: unknown) {
      const key = await requireKey(keyId);
      const revoked = key.revokedAt ? key : await storage.revokeKey(key.id);
      if (!revoked) throw new ServiceError("not-found", `Key not found: ${key.id}`);
      onChange();
      return { key: keyView(revoked) };
    },
  };
}
