import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Hono } from "hono";
import type { AppEnv } from "../app-types.js";
import { openTestProject, type openTestKeys } from "../../test/helpers/key-store.js";
import { keyAuth } from "../keys/key-auth.js";
import { publicRateLimit } from "./public-rate-limit.js";
import { onError } from "./errors.js";
import { createLogger } from "../logger.js";

let fixture: Awaited<ReturnType<typeof openTestKeys>>;
let secretKey: string;
let publicKey: string;
let clock = 0;

function makeApp(perMinute: number) {
  const app = new Hono<AppEnv>();
  app.onError(onError(createLogger("silent")));
  app.use((c, next) => {
    c.set("clientBucket", c.req.header("x-test-ip") ?? "1.1.1.1");
    return next();
  });
  app.use(keyAuth({ keys: fixture.keys }), publicRateLimit({ perMinute, now: () => clock }));
  app.get("/convert", (c) => c.text("ok"));
  return app;
}

beforeAll(async () => {
  ({ fixture, secretKey, publicKey } = await openTestProject("example.com"));
});
afterAll(() => fixture.dispose());

const asPublic = (ip = "1.1.1.1") => ({ headers: { "x-api-key": publicKey, origin: "https://example.com", "x-test-ip": ip } });

describe("publicRateLimit", () => {
  it("allows perMinute requests per (key, address), then 429 with Retry-After until the window ends", async () => {
    clock = 1_000_000;
    const app = makeApp(3);
    for (let i = 0; i < 3; i++) expect((await app.request("/convert", asPublic())).status).toBe(200);
    const refused = await app.request("/convert", asPublic());
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("60");
    expect((await refused.json()).message).toBe("Too many requests");
    expect((await app.request("/convert", asPublic("2.2.2.2"))).status).toBe(200);
    clock += 60_000;
    expect((await app.request("/convert", asPublic())).status).toBe(200);
  });

  it("never limits secret keys, and 0 turns it off", async () => {
    const app = makeApp(1);
    for (let i = 0; i < 3; i++) expect((await app.request("/convert", { headers: { "x-api-key": secretKey } })).status).toBe(200);
    const off = makeApp(0);
    for (let i = 0; i < 3; i++) expect((await off.request("/convert", asPublic())).status).toBe(200);
  });
});
