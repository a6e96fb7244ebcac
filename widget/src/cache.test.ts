import { describe, expect, it } from "vitest";
import { CACHE_TTL_MS, cacheKey, createLookupCache, type StorageLike } from "./cache.js";
import { bareIpObject } from "../../lib/schemas/ip-object.js";
import { clientError, type LookupResult } from "./result.js";

/** sessionStorage's contract on a Map, as Node has no sessionStorage. */
function memoryStorage(): StorageLike & { items: Map<string, string> } {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (k) => items.get(k) ?? null,
    setItem: (k, v) => void items.set(k, String(v)),
    removeItem: (k) => void items.delete(k),
  };
}

const success: LookupResult = { ok: true, data: bareIpObject("8.8.8.8", "ipv4") };

describe("createLookupCache", () => {
  it("returns what was stored for the same key and address within 30 minutes", () => {
    let now = 1_000_000;
    const cache = createLookupCache(memoryStorage(), () => now);
    cache.set("ipa_pk_a", "", success);
    now += CACHE_TTL_MS - 1;
    expect(cache.get("ipa_pk_a", "")).toEqual(success);
  });

  it("keeps keys and addresses apart", () => {
    const cache = createLookupCache(memoryStorage());
    cache.set("ipa_pk_a", "", success);
    expect(cache.get("ipa_pk_b", "")).toBeNull();
    expect(cache.get("ipa_pk_a", "8.8.8.8")).toBeNull();
  });

  it("expires entries after 30 minutes and removes them", () => {
    let now = 1_000_000;
    const storage = memoryStorage();
    const cache = createLookupCache(storage, () => now);
    cache.set("ipa_pk_a", "", success);
    now += CACHE_TTL_MS;
    expect(cache.get("ipa_pk_a", "")).toBeNull();
    expect(storage.items.has(cacheKey("ipa_pk_a", ""))).toBe(false);
  });

  it("ignores entries from the future (clock changed) and unreadable entries", () => {
    let now = 1_000_000;
    const storage = memoryStorage();
    const cache = createLookupCache(storage, () => now);
    cache.set("ipa_pk_a", "", success);
    now -= 60_000;
    expect(cache.get("ipa_pk_a", "")).toBeNull();
    storage.setItem(cacheKey("ipa_pk_a", "1.1.1.1"), "{not json");
    expect(cache.get("ipa_pk_a", "1.1.1.1")).toBeNull();
  });

  it("remembers errors as they were", () => {
    const cache = createLookupCache(memoryStorage());
    const failure: LookupResult = { ok: false, error: { ...clientError("Origin not allowed for this key"), code: 401 } };
    cache.set("ipa_pk_a", "", failure);
    expect(cache.get("ipa_pk_a", "")).toEqual(failure);
  });

  it("misses quietly when there is no storage or it throws", () => {
    const throwing: StorageLike = {
      getItem: () => {
        throw new Error("SecurityError");
      },
      setItem: () => {
        throw new Error("QuotaExceededError");
      },
      removeItem: () => {},
    };
    for (const cache of [createLookupCache(null), createLookupCache(throwing)]) {
      expect(() => cache.set("ipa_pk_a", "", success)).not.toThrow();
      expect(cache.get("ipa_pk_a", "")).toBeNull();
    }
  });
});
