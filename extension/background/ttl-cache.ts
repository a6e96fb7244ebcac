/**
 * Looked-up addresses, remembered in extension storage for the user's cache lifetime, so a second
 * visit (or another tab, or a restarted service worker) sends nothing. A Map in front saves
 * storage round trips while the worker lives.
 */
import type { IpObject } from "../../lib/schemas/ip-object.js";
import type { StorageAreaLike } from "../shared/storage-area.js";

/** `data` is null when the server could not locate the address (failed conversion). */
export interface CachedLookup {
  data: IpObject | null;
  expiresAt: number;
}

export interface TtlCacheOptions {
  area: StorageAreaLike;
  /** read on every write, so a changed setting applies to the next lookups */
  ttlMs: () => number;
  now?: () => number;
}

const PREFIX = "ip:";

export interface TtlCache {
  /** fresh entries only; missing and expired addresses are absent */
  getMany(ips: readonly string[]): Promise<Map<string, IpObject | null>>;
  /**
   * `fetchedIn`: the `generation` the answers were asked for in. Answers asked for before a
   * `clear()` come from the server or key it was cleared for, and are not kept.
   */
  setMany(entries: ReadonlyMap<string, IpObject | null>, fetchedIn?: number): Promise<void>;
  /** drops everything (another server or key answers differently) */
  clear(): Promise<void>;
  /** moves on at every `clear()` */
  readonly generation: number;
  /** removes expired entries from storage; returns how many */
  prune(): Promise<number>;
}

export function createTtlCache({ area, ttlMs, now = Date.now }: TtlCacheOptions): TtlCache {
  const memory = new Map<string, CachedLookup>();
  let generation = 0;

  return {
    get generation() {
      return generation;
    },
    async getMany(ips) {
      const found = new Map<string, IpObject | null>();
      const t = now();
      const missing: string[] = [];
      for (const ip of ips) {
        const hit = memory.get(ip);
        if (hit && hit.expiresAt > t) found.set(ip, hit.data);
        else missing.push(ip);
      }
      if (missing.length > 0) {
        const stored = await area.get(missing.map((ip) => PREFIX + ip));
        for (const ip of missing) {
          const entry = stored[PREFIX + ip] as CachedLookup | undefined;
          if (entry && entry.expiresAt > t) {
            memory.set(ip, entry);
            found.set(ip, entry.data);
          }
        }
      }
      return found;
    },
    async setMany(entries, fetchedIn = generation) {
      if (fetchedIn !== generation) return;
      const expiresAt = now() + ttlMs();
      const items: Record<string, CachedLookup> = {};
      for (const [ip, data] of entries) {
        const entry = { data, expiresAt };
        memory.set(ip, entry);
        items[PREFIX + ip] = entry;
      }
      await area.set(items);
    },
    async clear() {
      generation++;
      memory.clear();
      const all = await area.get(null);
      await area.remove(Object.keys(all).filter((key) => key.startsWith(PREFIX)));
    },
    async prune() {
      const t = now();
      const all = await area.get(null);
      const expired = Object.entries(all)
        .filter(([key, value]) => key.startsWith(PREFIX) && !((value as CachedLookup).expiresAt > t))
        .map(([key]) => key);
      for (const key of expired) memory.delete(key.slice(PREFIX.length));
      if (expired.length > 0) await area.remove(expired);
      return expired.length;
    },
  };
}
