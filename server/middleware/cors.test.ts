import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Hono } from "hono";
import type { AppEnv } from "../app-types.js";
import { openTestProject, type openTestKeys } from "../../test/helpers/key-store.js";
import { apiCors } from "./cors.js";
import { keyAuth } from "../keys/key-auth.js";
import { onError } from "./errors.js";
import { createLogger } from "../logger.js";

let fixture: Awaited<ReturnType<typeof openTestKeys>>;
let app: Hono<AppEnv>;
let secretKey: string;
let publicKey: string;

beforeAll(async () => {
  ({ fixture, secretKey, publicKey } = await openTestProject("localhost:5173"));
  app = new Hono<AppEnv>();
  app.onError(onError(createLogger("silent")));
  app.use("/convert", apiCors({ exposeHeaders: ["X-RateLimit-Remaining", "x-conversion-id", "x-data-sources"] }), keyAuth({ keys: fixture.keys }));
  app.get("/convert", (c) => c.text("ok"));
});
afterAll(() => fixture.dispose());

describe("apiCors", () => {
  it("answers a preflight with 204 and the contract's headers, without a key", async () => {
    const res = await app.request("/convert", { method: "OPTIONS", headers: { origin: "https://any.test" } });
    expect(res.status).toBe(204);
    expect(Object.fromEntries(res.headers)).toMatchObject({
      "access-control-allow-origin": "https://any.test",
      "access-control-allow-methods": "GET, POST, OPTIONS",
      "access-control-allow-headers": "x-api-key, content-type",
      "access-control-max-age": "7200",
      vary: "Origin",
    });
  });

  it("names the Origin and exposes headers on accepted public-key answers", async () => {
    const res = await app.request("/convert", { headers: { "x-api-key": publicKey, origin: "http://localhost:5173" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
    expect(res.headers.get("vary")).toContain("Origin");
    expect(res.headers.get("access-control-expose-headers")).toContain("X-RateLimit-Remaining");
    expect(res.headers.get("access-control-expose-headers")).toContain("x-conversion-id");
    expect(res.headers.get("access-control-expose-headers")).toContain("x-data-sources");
  });

  it("gives secret-key and bad-key answers no Access-Control-Allow-Origin", async () => {
    const secret = await app.request("/convert", { headers: { "x-api-key": secretKey, origin: "http://localhost:5173" } });
    expect(secret.status).toBe(200);
    expect(secret.headers.get("access-control-allow-origin")).toBeNull();
    const invalid = await app.request("/convert", { headers: { "x-api-key": "ipa_pk_unknown", origin: "http://localhost:9999" } });
    expect(invalid.status).toBe(401);
    expect(invalid.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("lets a refused origin read its refusal, which names it, and nothing more", async () => {
    const refused = await app.request("/convert", { headers: { "x-api-key": publicKey, origin: "http://localhost:9999" } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("access-control-allow-origin")).toBe("http://localhost:9999");
    expect(refused.headers.get("access-control-expose-headers")).toBeNull();
    expect(await refused.json()).toMatchObject({ message: "Origin not allowed for this key", data: { origin: "http://localhost:9999" } });
  });
});
