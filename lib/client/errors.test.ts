import { describe, expect, it } from "vitest";
import { MESSAGES } from "../schemas/messages.js";
import { classifyError, retryAtFromHeaders } from "./errors.js";

describe("classifyError", () => {
  it("tells the three 401s apart by their exact message", () => {
    expect(classifyError(401, MESSAGES.missingKey)).toBe("missing-key");
    expect(classifyError(401, MESSAGES.invalidKey)).toBe("invalid-key");
    expect(classifyError(401, MESSAGES.originNotAllowed)).toBe("origin-not-allowed");
  });
  it("tells quota from rate limit", () => {
    expect(classifyError(429, MESSAGES.quotaExceeded)).toBe("quota-exceeded");
    expect(classifyError(429, MESSAGES.tooManyRequests)).toBe("rate-limited");
  });
  it("maps the rest by status", () => {
    expect(classifyError(403, MESSAGES.publicKeyForbidden)).toBe("forbidden");
    expect(classifyError(400, MESSAGES.invalidIp)).toBe("invalid-request");
    expect(classifyError(500, MESSAGES.internal)).toBe("server-error");
  });
});

describe("retryAtFromHeaders", () => {
  const now = 1_000_000;
  it("reads Retry-After in seconds", () => {
    expect(retryAtFromHeaders(new Headers({ "retry-after": "30" }), now)).toBe(now + 30_000);
  });
  it("reads Retry-After as an HTTP date", () => {
    const date = "Sun, 22 Nov 2026 05:00:00 GMT";
    expect(retryAtFromHeaders(new Headers({ "retry-after": date }), now)).toBe(Date.parse(date));
  });
  it("falls back to X-RateLimit-Reset in epoch seconds", () => {
    expect(retryAtFromHeaders(new Headers({ "x-ratelimit-reset": "1790000000" }), now)).toBe(1_790_000_000_000);
  });
  it("is null when neither header is readable", () => {
    expect(retryAtFromHeaders(new Headers({ "retry-after": "soon" }), now)).toBeNull();
    expect(retryAtFromHeaders(new Headers(), now)).toBeNull();
  });
});
