/**
 * Remembers lookups in sessionStorage so a visitor costs one conversion per key per 30 minutes,
 * however many pages they open. Storage may be missing or throw (privacy modes, sandboxed
 * frames, full quota): the cache then simply misses.
 */
import type { LookupResult } from "./result.js";

export const CACHE_TTL_MS = 30 * 60 * 1000;
const PREFIX = "ipatlas:v1:";

export type StorageLike = Pick<Storage, "getItem" | "setItem" | "removeItem">;

interface CacheRecord {
  /** when it was stored, ms since epoch */
  at: number;
  result: LookupResult;
}

export interface LookupCache {
  get(key: string, ip: string): LookupResult | null;
  set(key: string, ip: string, result: LookupResult): void;
}

export function cacheKey(key: string, ip: string): string {
  return `${PREFIX}${key}:${ip || "visitor"}`;
}

export function createLookupCache(
  storage: StorageLike | null,
  now: () => number = Date.now,
  ttlMs = CACHE_TTL_MS,
): LookupCache {
  return {
    get(key, ip) {
      try {
        const raw = storage?.getItem(cacheKey(key, ip));
        if (!raw) return null;
        const record = JSON.parse(raw) as CacheRecord;
        const age = now() - record.at;
        if (typeof record.at === "number" && age >= 0 && age < ttlMs && record.result) return record.result;
        storage?.removeItem(cacheKey(key, ip));
      } catch {
        // unreadable entry or storage: treat as a miss
      }
      return null;
    },
    set(key, ip, result) {
      try {
        storage?.setItem(cacheKey(key, ip), JSON.stringify({ at: now(), result } satisfies CacheRecord));
      } catch {
        // no storage: every page load looks up again, still one request per page
      }
    },
  };
}
