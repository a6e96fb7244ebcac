import { describe, expect, it } from "vitest";
import { Hono } from "hono";
import type { AppEnv } from "../app-types.js";
import { requestId } from "./request-id.js";
import { ApiError } from "./envelope.js";
import { notFound, onError } from "./errors.js";
import { createLogger } from "../logger.js";

function app(lines: string[]) {
  const hono = new Hono<AppEnv>();
  hono.notFound(notFound());
  hono.onError(onError(createLogger("error", (line) => lines.push(line))));
  hono.use(requestId());
  hono.get("/boom", () => {
    throw new Error("secret detail");
  });
  hono.get("/refused", () => {
    throw new ApiError(429, "Too many requests", null, { "Retry-After": "5" });
  });
  return hono;
}

describe("error answers", () => {
  it("answers an unknown route with the 404 envelope", async () => {
    const res = await app([]).request("/nope");
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ success: false, code: 404, message: "Not found", data: null });
    expect(res.headers.get("x-request-id")).toBeTruthy();
  });

  it("hides a crash behind 500 and logs it with the request id", async () => {
    const lines: string[] = [];
    const res = await app(lines).request("/boom");
    const body = await res.json();
    expect(res.status).toBe(500);
    expect(body).toMatchObject({ success: false, code: 500, message: "Internal server error", data: null });
    expect(JSON.stringify(body)).not.toContain("secret detail");
    expect(lines.join("\n")).toContain("secret detail");
    expect(lines.join("\n")).toContain(body._req.reqId);
  });

  it("turns an ApiError into its own status, message and headers", async () => {
    const res = await app([]).request("/refused");
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("5");
    expect(await res.json()).toMatchObject({ code: 429, message: "Too many requests" });
  });
});
