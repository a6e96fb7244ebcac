import { describe, expect, it } from "vitest";
import { Hono } from "hono";
import type { AppEnv } from "../app-types.js";
import { requestId } from "./request-id.js";
import { allowedMethods } from "./allowed-methods.js";

describe("allowedMethods", () => {
  const app = new Hono<AppEnv>()
    .use(requestId())
    .use(allowedMethods({ "/convert": ["GET", "POST", "OPTIONS"] }))
    .get("/convert", (c) => c.text("ok"));

  it("answers 405 with Allow for a known path and a wrong method", async () => {
    const res = await app.request("/convert", { method: "DELETE" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, POST, OPTIONS, HEAD");
    expect(await res.json()).toMatchObject({ success: false, code: 405, message: "Method not allowed" });
  });

  it("lets allowed methods and other paths through", async () => {
    expect((await app.request("/convert")).status).toBe(200);
    expect((await app.request("/other", { method: "DELETE" })).status).toBe(404);
  });
});
