import { describe, expect, it } from "vitest";
import { MESSAGES } from "../../lib/schemas/messages.js";
import type { ErrorEnvelope } from "../../lib/schemas/envelope.js";
import { explainError, explainSetup, explainUnlocated, isPrivateAddress } from "./explain.js";
import { clientError } from "./result.js";
import { NETWORK_ERROR } from "./lookup.js";

const answer = (code: number, message: string, data: Record<string, unknown> | null = null): ErrorEnvelope => ({
  success: false,
  code,
  message,
  data,
  _req: { reqId: "r", resTime: 1 },
});
const context = { online: true, pageOrigin: "https://shop.example.com", server: "https://geo.example.com" };

describe("isPrivateAddress", () => {
  it("knows the ranges local networks use", () => {
    for (const ip of ["10.1.2.3", "192.168.0.10", "172.16.0.1", "172.31.255.255", "127.0.0.1", "169.254.1.1", "100.64.0.1", "::1", "fd12:3456::1", "fe80::1"]) {
      expect(isPrivateAddress(ip), ip).toBe(true);
    }
    for (const ip of ["8.8.8.8", "172.32.0.1", "100.128.0.1", "81.2.69.160", "2a00:1450::1", "2001:db8::1"]) {
      expect(isPrivateAddress(ip), ip).toBe(false);
    }
  });
});

describe("explainUnlocated", () => {
  it("says a private address has no location, and why", () => {
    expect(explainUnlocated("192.168.1.20")).toMatchObject({ reason: "private", title: "Private network address" });
    expect(explainUnlocated("203.0.113.9")).toMatchObject({ reason: "unknown", detail: expect.stringContaining("203.0.113.9") });
  });
});

describe("explainError", () => {
  it("names the refused origin and the command that registers it", () => {
    const refused = explainError(answer(401, MESSAGES.originNotAllowed, { origin: "https://blog.example.com:8443" }), context);
    expect(refused.reason).toBe("origin");
    expect(refused.detail).toBe("Register https://blog.example.com:8443 for this key: ipatlas website add --project ID --origin blog.example.com:8443");
    // an older server's refusal carries no origin: the page's own is the one to register
    expect(explainError(answer(401, MESSAGES.originNotAllowed), context).detail).toContain("https://shop.example.com");
  });

  it("tells quota, rate limit, bad keys and bad input apart", () => {
    expect(explainError(answer(429, MESSAGES.quotaExceeded), context).reason).toBe("quota");
    expect(explainError(answer(429, MESSAGES.tooManyRequests), context).reason).toBe("rate");
    expect(explainError(answer(401, MESSAGES.invalidKey), context).reason).toBe("key");
    expect(explainError(answer(400, MESSAGES.invalidIp), context)).toMatchObject({ reason: "input", detail: MESSAGES.invalidIp });
    expect(explainError(answer(500, MESSAGES.internal), context).detail).toBe("Internal server error (HTTP 500)");
  });

  it("tells offline from a server that does not answer", () => {
    expect(explainError(clientError(NETWORK_ERROR), { ...context, online: false }).reason).toBe("offline");
    const unreachable = explainError(clientError(NETWORK_ERROR), context);
    expect(unreachable.reason).toBe("unreachable");
    expect(unreachable.detail).toContain("https://geo.example.com");
  });

  it("explains a wrong embed without asking the server", () => {
    expect(explainSetup("No public key: set the key attribute")).toEqual({ reason: "setup", title: "Widget not set up", detail: "No public key: set the key attribute" });
  });
});
