import { describe, expect, it } from "vitest";
import { bareIpObject } from "../../lib/schemas/ip-object.js";
import { memoryStorageArea } from "../shared/storage-area.js";
import { createTtlCache } from "./ttl-cache.js";

describe("createTtlCache", () => {
  const google = bareIpObject("8.8.8.8", "ipv4");

  it("answers fresh entries, from storage too (a restarted worker)", async () => {
    const area = memoryStorageArea();
    let t = 1000;
    const first = createTtlCache({ area, ttlMs: () => 60_000, now: () => t });
    await first.setMany(new Map([["8.8.8.8", google], ["192.0.2.1", null]]));
    const second = createTtlCache({ area, ttlMs: () => 60_000, now: () => t });
    const found = await second.getMany(["8.8.8.8", "192.0.2.1", "1.1.1.1"]);
    expect([...found.entries()]).toEqual([["8.8.8.8", google], ["192.0.2.1", null]]);
    t += 60_000;
    expect((await second.getMany(["8.8.8.8"])).size).toBe(0);
  });

  it("does not keep answers asked for before a clear: they are the previous server's or key's", async () => {
    const area = memoryStorageArea();
    const cache = createTtlCache({ area, ttlMs: () => 60_000 });
    const asked = cache.generation;
    await cache.clear();
    await cache.setMany(new Map([["8.8.8.8", google]]), asked);
    expect((await cache.getMany(["8.8.8.8"])).size).toBe(0);
    expect(Object.keys(await area.get(null))).toEqual([]);
    await cache.setMany(new Map([["8.8.8.8", google]]), cache.generation);
    expect((await cache.getMany(["8.8.8.8"])).size).toBe(1);
  });

  it("prunes expired entries and clears all of them, leaving settings alone", async () => {
    const area = memoryStorageArea();
    await area.set({ settings: { enabled: true } });
    let t = 0;
    let ttl = 10;
    const cache = createTtlCache({ area, ttlMs: () => ttl, now: () => t });
    await cache.setMany(new Map([["8.8.8.8", google]]));
    ttl = 1000;
    await cache.setMany(new Map([["1.1.1.1", null]]));
    t = 20;
    expect(await cache.prune()).toBe(1);
    expect([...area.data.keys()].sort()).toEqual(["ip:1.1.1.1", "settings"]);
    await cache.clear();
    expect([...area.data.keys()]).toEqual(["settings"]);
    expect((await cache.getMany(["1.1.1.1"])).size).toBe(0);
  });
});
