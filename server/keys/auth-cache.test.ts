import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createStorage } from "../storage/index.js";
import type { Storage } from "../storage/types.js";
import { createAdminServices } from "../services/index.js";
import { createKeyService, type KeyService } from "./auth-cache.js";

// Two storages on one SQLite file stand for the server and a CLI process changing keys.
let dir: string;
let serverStorage: Storage;
let cliStorage: Storage;
let keys: KeyService;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ipatlas-keys-"));
  serverStorage = await createStorage({ dataDir: dir });
  cliStorage = await createStorage({ dataDir: dir });
  keys = createKeyService(serverStorage, { pollMs: 50, touchFlushMs: 50 });
});

afterAll(async () => {
  await keys.close();
  await serverStorage.close();
  await cliStorage.close();
  rmSync(dir, { recursive: true, force: true });
});

const waitFor = async (check: () => Promise<boolean>, ms = 1000) => {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
};

describe("key service", () => {
  it("authenticates a key by value and refuses anything else", async () => {
    const { secretKey, project } = await createAdminServices(cliStorage).createProject({ name: "a" });
    const auth = await keys.authenticate(secretKey);
    expect(auth?.project.id).toBe(project.id);
    expect(auth?.key.kind).toBe("secret");
    expect(await keys.authenticate(secretKey.slice(0, -1) + (secretKey.endsWith("a") ? "b" : "a"))).toBeNull();
    expect(await keys.authenticate("not a key")).toBeNull();
  });

  it("sees a roll or revoke made by another process within a second", async () => {
    const cli = createAdminServices(cliStorage);
    const { secretKey, key } = await cli.createProject({ name: "b" }).then(async (p) => cli.createKey({ projectId: p.project.id, name: "k" }));
    expect(await keys.authenticate(secretKey)).not.toBeNull();
    const rolled = await cli.rollKey(key.id);
    expect(await waitFor(async () => (await keys.authenticate(secretKey)) === null)).toBe(true);
    const newValue = rolled.secretKey ?? "";
    expect(await keys.authenticate(newValue)).not.toBeNull();
    await cli.revokeKey(key.id);
    expect(await waitFor(async () => (await keys.authenticate(newValue)) === null)).toBe(true);
  });

  it("records lastUsedAt lazily", async () => {
    const cli = createAdminServices(cliStorage);
    const { secretKey, project } = await cli.createProject({ name: "c" });
    expect((await cli.listKeys(project.id))[0]!.lastUsedAt).toBeNull();
    await keys.authenticate(secretKey);
    expect(await waitFor(async () => (await cli.listKeys(project.id))[0]!.lastUsedAt !== null)).toBe(true);
  });
});
