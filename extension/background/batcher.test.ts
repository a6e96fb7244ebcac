import { describe, expect, it } from "vitest";
import { ApiError } from "../../lib/client/index.js";
import { bareIpObject, type IpObject } from "../../lib/schemas/ip-object.js";
import { MESSAGES } from "../../lib/schemas/messages.js";
import { memoryStorageArea } from "../shared/storage-area.js";
import { createBackoff } from "./backoff.js";
import { createLookupBatcher, type FetchBatch } from "./batcher.js";
import { createTtlCache } from "./ttl-cache.js";

/** A FetchBatch that records what it was asked and answers every address (or fails with `failWith`). */
function recordingFetch() {
  const batches: string[][] = [];
  let failWith: ApiError | null = null;
  const fetchBatch: FetchBatch = async (ips) => {
    batches.push(ips);
    if (failWith) throw failWith;
    return new Map(ips.map((ip): [string, IpObject | null] => [ip, bareIpObject(ip, "ipv4")]));
  };
  return { batches, fetchBatch, fail: (e: ApiError | null) => (failWith = e) };
}

function setup(maxBatch?: number) {
  let t = 1_000_000;
  const now = () => t;
  const area = memoryStorageArea();
  const cache = createTtlCache({ area, ttlMs: () => 60_000, now });
  const backoff = createBackoff({ now });
  const remote = recordingFetch();
  const batcher = createLookupBatcher({ fetchBatch: remote.fetchBatch, cache, backoff, delayMs: 5, maxBatch });
  return { batcher, remote, area, advance: (ms: number) => (t += ms) };
}

describe("createLookupBatcher", () => {
  it("coalesces lookups from several tabs into one deduplicated request", async () => {
    const { batcher, remote } = setup();
    const [a, b] = await Promise.all([
      batcher.lookup(["8.8.8.8", "1.1.1.1", "8.8.8.8"]),
      batcher.lookup(["1.1.1.1", "9.9.9.9"]),
    ]);
    expect(remote.batches).toEqual([["8.8.8.8", "1.1.1.1", "9.9.9.9"]]);
    expect([...a.found.keys()]).toEqual(["8.8.8.8", "1.1.1.1"]);
    expect(b.found.get("9.9.9.9")?.ip).toBe("9.9.9.9");
    expect(a.error).toBeNull();
  });

  it("splits more than maxBatch addresses into several requests", async () => {
    const { batcher, remote } = setup(5000);
    const ips = Array.from({ length: 12_000 }, (_, i) => `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`);
    const answer = await batcher.lookup(ips);
    expect(remote.batches.map((b) => b.length)).toEqual([5000, 5000, 2000]);
    expect(answer.found.size).toBe(12_000);
  });

  it("sends nothing on a second visit: the cache answers", async () => {
    const { batcher, remote } = setup();
    await batcher.lookup(["8.8.8.8"]);
    const again = await batcher.lookup(["8.8.8.8"]);
    expect(remote.batches).toHaveLength(1);
    expect(again.found.get("8.8.8.8")?.ip).toBe("8.8.8.8");
  });

  it("after a 429 answers with the error and sends nothing until the reset, then sends again", async () => {
    const { batcher, remote, advance } = setup();
    remote.fail(new ApiError({ kind: "rate-limited", status: 429, message: MESSAGES.tooManyRequests, retryAt: 1_030_000 }));
    const first = await batcher.lookup(["8.8.8.8"]);
    expect(first.error).toMatchObject({ kind: "rate-limited", retryAt: 1_030_000 });
    remote.fail(null);
    for (let i = 0; i < 5; i++) expect((await batcher.lookup(["8.8.8.8", "1.1.1.1"])).error?.kind).toBe("rate-limited");
    expect(remote.batches).toHaveLength(1);
    advance(30_000);
    const later = await batcher.lookup(["8.8.8.8"]);
    expect(later.error).toBeNull();
    expect(remote.batches).toHaveLength(2);
  });

  it("answers cached addresses even while blocked", async () => {
    const { batcher, remote } = setup();
    await batcher.lookup(["8.8.8.8"]);
    remote.fail(new ApiError({ kind: "unreachable", status: 0, message: "down" }));
    const answer = await batcher.lookup(["8.8.8.8", "1.1.1.1"]);
    expect(answer.found.has("8.8.8.8")).toBe(true);
    expect(answer.error?.kind).toBe("unreachable");
  });
});
