/**
 * Key authentication with an in-memory cache. Lookups go by the SHA-256 of the presented value;
 * the cache is dropped whenever storage.changeVersion() moves (polled), so a key created, rolled
 * or revoked by the CLI in another process takes effect here within one poll interval.
 * lastUsedAt is written lazily, in batches, so authentication costs no write per request.
 */
import { LRUCache } from "lru-cache";
import type { KeyAuth, Storage } from "../storage/types.js";
import { hashKey, keyKindOf } from "./key-values.js";

export interface KeyService {
  /** the key's project (and website for public keys), or null when unknown, revoked or rolled */
  authenticate(value: string): Promise<KeyAuth | null>;
  /** drops the cache now (changes made in this process) */
  invalidate(): void;
  /** stops polling and writes the pending lastUsedAt values */
  close(): Promise<void>;
}

export interface KeyServiceOptions {
  pollMs?: number;
  touchFlushMs?: number;
  cacheSize?: number;
  onError?: (error: unknown, where: string) => void;
}

interface CacheEntry {
  auth: KeyAuth | null;
}

export function createKeyService(storage: Storage, options: KeyServiceOptions = {}): KeyService {
  const { pollMs = 50, touchFlushMs = 5000, cacheSize = 10_000, onError = () => {} } = options;
  const cache = new LRUCache<string, CacheEntry>({ max: cacheSize });
  // bumped on every invalidation so that a lookup that started before it cannot refill stale data
  let generation = 0;
  let knownVersion: number | null = null;
  const pendingTouches = new Map<string, number>();

  const invalidate = () => {
    generation++;
    cache.clear();
  };

  let polling = false;
  const poll = async () => {
    if (polling) return;
    polling = true;
    try {
      const version = await storage.changeVersion();
      if (knownVersion !== null && version !== knownVersion) invalidate();
      knownVersion = version;
    } catch (error) {
      onError(error, "key cache poll");
    } finally {
      polling = false;
    }
  };
  void poll();
  const pollTimer = setInterval(poll, pollMs);
  pollTimer.unref();

  const flushTouches = async () => {
    if (pendingTouches.size === 0) return;
    const uses = [...pendingTouches].map(([keyId, at]) => ({ keyId, at }));
    pendingTouches.clear();
    try {
      await storage.touchKeys(uses);
    } catch (error) {
      onError(error, "lastUsedAt update");
    }
  };
  const touchTimer = setInterval(flushTouches, touchFlushMs);
  touchTimer.unref();

  return {
    async authenticate(value) {
      if (keyKindOf(value) === null) return null;
      const hash = hashKey(value);
      let entry = cache.get(hash);
      if (!entry) {
        const startedGeneration = generation;
        const found = await storage.findKeyByHash(hash);
        entry = { auth: found && found.key.revokedAt === null ? found : null };
        if (generation === startedGeneration) cache.set(hash, entry);
      }
      // Found by the SHA-256 of the value, never by the value: what a lookup's timing could tell
      // is about a hash, not about a key. Comparing the found hash again would compare it with itself.
      if (!entry.auth) return null;
      pendingTouches.set(entry.auth.key.id, Date.now());
      return entry.auth;
    },
    invalidate,
    async close() {
      clearInterval(pollTimer);
      clearInterval(touchTimer);
      await flushTouches();
    },
  };
}
