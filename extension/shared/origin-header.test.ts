import { describe, expect, it } from "vitest";
import { originRule, syncOriginRule } from "./origin-header.js";

describe("originRule", () => {
  const origin = "chrome-extension://abcdefghijklmnopabcdefghijklmnop";

  it("sets the extension's origin on its own requests to the server's host only", () => {
    expect(originRule("https://geo.example.com:8443/base/", origin)).toMatchObject({
      action: { requestHeaders: [{ header: "origin", operation: "set", value: origin }] },
      condition: { requestDomains: ["geo.example.com"], initiatorDomains: ["abcdefghijklmnopabcdefghijklmnop"] },
    });
    expect(originRule("http://[::1]:8787", origin)?.condition.requestDomains).toEqual(["::1"]);
  });

  it("has no rule for an unusable Server URL", () => {
    expect(originRule("", origin)).toBeNull();
    expect(originRule("ftp://geo.example.com", origin)).toBeNull();
  });

  it("replaces the previous rule", async () => {
    const calls: unknown[] = [];
    await syncOriginRule({ updateSessionRules: async (o) => void calls.push(o) }, "nope", origin);
    expect(calls).toEqual([{ removeRuleIds: [1], addRules: [] }]);
  });
});
