import { describe, expect, it } from "vitest";
import { bareIpObject } from "../../lib/schemas/ip-object.js";
import type { LookupResponse } from "../shared/messages.js";
import { createContentLookups } from "./lookups.js";

describe("createContentLookups", () => {
  it("coalesces requests into one message and asks for each address once", async () => {
    const messages: string[][] = [];
    const lookups = createContentLookups({
      delayMs: 5,
      ask: async (ips) => {
        messages.push(ips);
        return { results: Object.fromEntries(ips.map((ip) => [ip, bareIpObject(ip, "ipv4")])), error: null };
      },
    });
    await Promise.all([lookups.request(["8.8.8.8", "1.1.1.1"]), lookups.request(["1.1.1.1", "9.9.9.9"])]);
    await lookups.request(["8.8.8.8"]);
    expect(messages).toEqual([["8.8.8.8", "1.1.1.1", "9.9.9.9"]]);
    expect(lookups.known("9.9.9.9")).toEqual({ data: bareIpObject("9.9.9.9", "ipv4") });
  });

  it("remembers the error for addresses without an answer and asks again later", async () => {
    let answer: LookupResponse = { results: {}, error: { kind: "rate-limited", message: "Too many requests", status: 429, retryAt: 5 } };
    let asked = 0;
    const lookups = createContentLookups({ delayMs: 1, ask: async () => (asked++, answer) });
    await lookups.request(["8.8.8.8"]);
    expect(lookups.known("8.8.8.8")).toEqual({ error: answer.error });
    answer = { results: { "8.8.8.8": null }, error: null };
    await lookups.request(["8.8.8.8"]);
    expect(lookups.known("8.8.8.8")).toEqual({ data: null });
    expect(asked).toBe(2);
  });

  it("turns a failed message (worker gone) into an error, not a crash", async () => {
    const lookups = createContentLookups({ delayMs: 1, ask: () => Promise.reject(new Error("Extension context invalidated.")) });
    await lookups.request(["8.8.8.8"]);
    expect(lookups.known("8.8.8.8")).toMatchObject({ error: { kind: "unreachable" } });
  });
});
