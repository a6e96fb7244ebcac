import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestKeys } from "../../test/helpers/key-store.js";
import { ServiceError } from "./index.js";

let fixture: Awaited<ReturnType<typeof openTestKeys>>;
beforeAll(async () => {
  fixture = await openTestKeys();
});
afterAll(() => fixture.dispose());

const refusal = async (work: () => Promise<unknown>) => {
  try {
    await work();
  } catch (error) {
    if (error instanceof ServiceError) return { kind: error.kind, message: error.message };
    throw error;
  }
  throw new Error("expected a ServiceError");
};

describe("admin services", () => {
  it("create a project on free with a first secret key named default", async () => {
    const created = await fixture.services.createProject({ name: "  Shop  " });
    expect(created.project).toMatchObject({ name: "Shop", plan: "free" });
    expect(created.secretKey).toMatch(/^ipa_sk_/);
    expect((await fixture.services.listKeys(created.project.id)).map((k) => k.name)).toEqual(["default"]);
    expect(await fixture.services.usage(created.project.id, new Date("2026-11-22T00:00:00Z"))).toEqual({
      plan: "free",
      used: 0,
      limit: 1000,
      periodStart: "2026-11-01T00:00:00.000Z",
      periodEnd: "2026-12-01T00:00:00.000Z",
    });
  });

  it("refuse bad input with a sentence, and unknown ids as not-found", async () => {
    expect(await refusal(() => fixture.services.createProject({ name: "" }))).toEqual({ kind: "invalid", message: "Project name is required" });
    for (const name of ["a\u001b[31mred", "bell\u0007", "admin\u202Etxt.exe", "nul\u0000"]) {
      expect(await refusal(() => fixture.services.createProject({ name }))).toEqual({ kind: "invalid", message: "Project name must not contain control characters" });
    }
    expect(await refusal(() => fixture.services.createProject({ name: "x", plan: "gold" }))).toMatchObject({ kind: "invalid", message: expect.stringContaining("free, starter, growth, scale") });
    expect(await refusal(() => fixture.services.setPlan("nope", "free"))).toMatchObject({ kind: "not-found" });
    expect(await refusal(() => fixture.services.rollKey("nope"))).toMatchObject({ kind: "not-found" });
    expect(await refusal(() => fixture.services.removeWebsite("nope"))).toMatchObject({ kind: "not-found" });
  });

  it("websites: normalised, once per project, removal revokes the public key", async () => {
    const { project } = await fixture.services.createProject({ name: "w" });
    const added = await fixture.services.addWebsite({ projectId: project.id, origin: "HTTPS://App.Example.com:443/" });
    expect(added.website.origin).toBe("https://app.example.com");
    expect(added.publicKey).toMatch(/^ipa_pk_/);
    expect(await refusal(() => fixture.services.addWebsite({ projectId: project.id, origin: "https://app.example.com" }))).toMatchObject({ kind: "invalid" });
    expect(await refusal(() => fixture.services.addWebsite({ projectId: project.id, origin: "example.com/path" }))).toMatchObject({ kind: "invalid" });
    expect(await fixture.keys.authenticate(added.publicKey)).not.toBeNull();
    await fixture.services.removeWebsite(added.website.id);
    expect(await fixture.keys.authenticate(added.publicKey)).toBeNull();
    const publicKey = (await fixture.services.listKeys(project.id)).find((k) => k.kind === "public");
    expect(publicKey?.revokedAt).not.toBeNull();
  });

  it("a revoked key cannot be rolled back to life", async () => {
    const { project } = await fixture.services.createProject({ name: "r" });
    const { key } = await fixture.services.createKey({ projectId: project.id, name: "k" });
    await fixture.services.revokeKey(key.id);
    expect(await refusal(() => fixture.services.rollKey(key.id))).toMatchObject({ kind: "invalid" });
  });
});
