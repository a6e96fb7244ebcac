import { describe, expect, it } from "vitest";
import { Hono } from "hono";
import type { AppEnv } from "../app-types.js";
import { requestId, API_VERSION } from "./request-id.js";
import { reply } from "./envelope.js";

describe("requestId", () => {
  it("stamps x-request-id equal to _req.reqId and x-api-version", async () => {
    const app = new Hono<AppEnv>().use(requestId()).get("/", (c) => reply(c, 200, "Success", { ok: 1 }));
    const res = await app.request("/");
    const body = await res.json();
    expect(res.headers.get("x-api-version")).toBe(API_VERSION);
    expect(res.headers.get("x-request-id")).toBe(body._req.reqId);
    expect(body).toMatchObject({ success: true, message: "Success", code: 200, data: { ok: 1 } });
    expect(typeof body._req.resTime).toBe("number");
  });

  it("gives every request its own id, also on responses a handler built itself", async () => {
    let n = 0;
    const app = new Hono<AppEnv>().use(requestId({ generate: () => `r${++n}` })).get("/", () => new Response("x"));
    expect((await app.request("/")).headers.get("x-request-id")).toBe("r1");
    expect((await app.request("/")).headers.get("x-request-id")).toBe("r2");
  });
});
