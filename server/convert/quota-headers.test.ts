import { describe, expect, it } from "vitest";
import { Hono } from "hono";
import type { AppEnv } from "../app-types.js";
import { quotaHeaders } from "./quota-headers.js";

describe("quotaHeaders", () => {
  const resetAt = new Date("2026-12-01T00:00:00.000Z");
  const app = new Hono<AppEnv>()
    .use(quotaHeaders())
    .get("/limited", (c) => {
      c.set("quota", { limit: 1000, used: 1001, resetAt });
      return c.text("x");
    })
    .get("/unlimited", (c) => {
      c.set("quota", { limit: null, used: 5, resetAt });
      return c.text("x");
    });

  it("writes limit, remaining (never negative) and the reset epoch for limited plans", async () => {
    const res = await app.request("/limited");
    expect(res.headers.get("x-ratelimit-limit")).toBe("1000");
    expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(res.headers.get("x-ratelimit-reset")).toBe(String(resetAt.getTime() / 1000));
  });

  it("writes nothing for unlimited plans", async () => {
    expect((await app.request("/unlimited")).headers.get("x-ratelimit-limit")).toBeNull();
  });
});
