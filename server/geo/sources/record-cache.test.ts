import { describe, expect, it } from "vitest";
import { KeptPartTokens, RecordCache } from "./record-cache.js";
import type { Located } from "./located.js";

const convert = (record: { name: string }) => ({ city: { name: record.name } }) as unknown as Located;

describe("RecordCache", () => {
  it("converts a cached record once", () => {
    const cache = new RecordCache(10, convert);
    const record = { name: "Lyon" };
    cache.set(100, record);
    expect(cache.of(record)).toBe(cache.of(record));
    expect(cache.get(100)).toBe(record);
  });

  it("starts afresh when full", () => {
    const cache = new RecordCache(2, convert);
    cache.set(1, { name: "a" });
    cache.set(2, { name: "b" });
    cache.set(3, { name: "c" });
    expect(cache.get(1)).toBeUndefined();
    expect(cache.get(3)).toBeDefined();
  });

  it("gives a record decoded again after a fresh start its part tokens back", () => {
    const kept = new KeptPartTokens(100);
    const cache = new RecordCache(2, convert, { tokens: kept, file: 0 });
    const first = { name: "Lyon" };
    cache.set(100, first);
    const before = cache.of(first);
    before.partTokens!.set({}, { json: undefined, stored: undefined });
    // two other records fill the cache, so it starts afresh and the decoder makes a new object
    cache.set(200, { name: "Nice" });
    cache.set(300, { name: "Metz" });
    expect(cache.get(100)).toBeUndefined();
    const again = { name: "Lyon" };
    cache.set(100, again);
    const after = cache.of(again);
    expect(after).not.toBe(before);
    expect(after.partTokens).toBe(before.partTokens);
    expect(after.partTokens!.size).toBe(1);
  });

  it("keeps no part tokens without a place for them: the engine makes them on the Located", () => {
    const cache = new RecordCache(2, convert);
    const record = { name: "Lyon" };
    cache.set(100, record);
    expect(cache.of(record).partTokens).toBeUndefined();
  });
});

describe("KeptPartTokens", () => {
  it("keeps one set per file and offset", () => {
    const kept = new KeptPartTokens(10);
    expect(kept.of(0, 7)).toBe(kept.of(0, 7));
    expect(kept.of(1, 7)).not.toBe(kept.of(0, 7));
    expect(kept.of(0, 8)).not.toBe(kept.of(0, 7));
  });

  it("starts afresh when it holds `max` records", () => {
    const kept = new KeptPartTokens(2);
    const first = kept.of(0, 1);
    kept.of(0, 2);
    expect(kept.of(0, 1)).toBe(first);
    kept.of(0, 3); // the third record: the sets start afresh
    expect(kept.of(0, 1)).not.toBe(first);
  });
});
