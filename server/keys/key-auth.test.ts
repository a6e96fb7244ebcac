import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Hono } from "hono";
import type { AppEnv } from "../app-types.js";
import { openTestProject, type openTestKeys } from "../../test/helpers/key-store.js";
import { requestId } from "../middleware/request-id.js";
import { keyAuth } from "./key-auth.js";
import { secretKeyOnly } from "../middleware/public-scope.js";
import { onError } from "../middleware/errors.js";
import { createLogger } from "../logger.js";

let fixture: Awaited<ReturnType<typeof openTestKeys>>;
let app: Hono<AppEnv>;
let secretKey: string;
let publicKey: string;

beforeAll(async () => {
  ({ fixture, secretKey, publicKey } = await openTestProject("*.example.com"));
  app = new Hono<AppEnv>();
  app.onError(onError(createLogger("silent")));
  app.use(requestId(), keyAuth({ keys: fixture.keys }));
  app.get("/convert", (c) => c.json({ kind: c.get("auth").key.kind }));
  app.get("/conversions/list", secretKeyOnly(), (c) => c.json({ ok: true }));
});
afterAll(() => fixture.dispose());

const call = async (path: string, headers: Record<string, string>) => {
  const res = await app.request(path, { headers });
  return { status: res.status, body: await res.json() };
};

describe("keyAuth", () => {
  it("401 Missing API key without the header", async () => {
    expect(await call("/convert", {})).toMatchObject({ status: 401, body: { message: "Missing API key" } });
    expect(await call("/convert", { "x-api-key": "  " })).toMatchObject({ status: 401, body: { message: "Missing API key" } });
  });

  it("401 Invalid API key for unknown values", async () => {
    expect(await call("/convert", { "x-api-key": "ipa_sk_" + "x".repeat(32) })).toMatchObject({ status: 401, body: { message: "Invalid API key" } });
  });

  it("accepts a secret key without Origin", async () => {
    expect(await call("/convert", { "x-api-key": secretKey })).toMatchObject({ status: 200, body: { kind: "secret" } });
  });

  it("accepts a public key only from an allowed Origin", async () => {
    expect(await call("/convert", { "x-api-key": publicKey, origin: "https://app.example.com" })).toMatchObject({ status: 200 });
    const origins: Array<Record<string, string>> = [{}, { origin: "https://example.com" }, { origin: "https://evil.test" }];
    for (const headers of origins) {
      expect(await call("/convert", { "x-api-key": publicKey, ...headers })).toMatchObject({
        status: 401,
        body: { message: "Origin not allowed for this key", data: { origin: headers.origin ?? null } },
      });
    }
  });
});

describe("secretKeyOnly", () => {
  it("403 for public keys, secret keys pass", async () => {
    expect(await call("/conversions/list", { "x-api-key": publicKey, origin: "https://a.example.com" })).toMatchObject({
      status: 403,
      body: { message: "Public keys can only convert addresses" },
    });
    expect(await call("/conversions/list", { "x-api-key": secretKey })).toMatchObject({ status: 200 });
  });
});
