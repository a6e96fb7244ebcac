/**
 * Every lookup of every tab goes through here: answered from the TTL cache when possible,
 * deduplicated against what is already queued or in flight, and batched into POST /convert
 * requests of at most 5000 addresses, sent one after the other. While the back-off blocks, nothing
 * is sent and callers get the blocking error at once.
 */
import { ApiError } from "../../lib/client/index.js";
import { LIMITS } from "../../lib/schemas/api.js";
import type { IpObject } from "../../lib/schemas/ip-object.js";
import type { Backoff } from "./backoff.js";
import type { TtlCache } from "./ttl-cache.js";

/** Sends one batch; answers each address with its Ip object (null when the server could not convert it). */
export type FetchBatch = (ips: string[]) => Promise<Map<string, IpObject | null>>;

export interface LookupBatcherOptions {
  fetchBatch: FetchBatch;
  cache: TtlCache;
  backoff: Backoff;
  /** how long to collect addresses before sending; default 25 ms */
  delayMs?: number;
  maxBatch?: number;
}

export interface LookupAnswer {
  found: Map<string, IpObject | null>;
  /** why some addresses have no answer, else null */
  error: ApiError | null;
}

export interface LookupBatcher {
  lookup(ips: readonly string[]): Promise<LookupAnswer>;
}

interface Waiting {
  promise: Promise<IpObject | null>;
  resolve(data: IpObject | null): void;
  reject(error: ApiError): void;
}

function waiting(): Waiting {
  let resolve!: Waiting["resolve"];
  let reject!: Waiting["reject"];
  const promise = new Promise<IpObject | null>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => {}); // handled by whoever awaits it; an unawaited rejection must not crash the worker
  return { promise, resolve, reject };
}

export function createLookupBatcher(options: LookupBatcherOptions): LookupBatcher {
  const { fetchBatch, cache, backoff, delayMs = 25, maxBatch = LIMITS.ipsPerRequest } = options;
  /** queued or in flight, by address */
  const open = new Map<string, Waiting>();
  let queue: string[] = [];
  let timer: ReturnType<typeof setTimeout> | null = null;
  let sending = false;

  function schedule() {
    if (timer === null && !sending) timer = setTimeout(flush, delayMs);
  }

  async function flush() {
    timer = null;
    sending = true;
    try {
      while (queue.length > 0) {
        const batch = queue.slice(0, maxBatch);
        queue = queue.slice(batch.length);
        const blocked = backoff.blocking();
        if (blocked) {
          settle(batch, blocked);
          continue;
        }
        try {
          // the settings may change (and the cache be cleared) while the request is out
          const generation = cache.generation;
          const answers = await fetchBatch(batch);
          backoff.succeeded();
          await cache.setMany(answers, generation);
          for (const ip of batch) {
            open.get(ip)?.resolve(answers.get(ip) ?? null);
            open.delete(ip);
          }
        } catch (error) {
          const failure =
            error instanceof ApiError
              ? error
              : new ApiError({ kind: "bad-response", status: 0, message: String((error as Error)?.message ?? error) });
          backoff.failed(failure);
          settle(batch, backoff.blocking() ?? failure);
        }
      }
    } finally {
      sending = false;
    }
  }

  function settle(batch: string[], error: ApiError) {
    for (const ip of batch) {
      open.get(ip)?.reject(error);
      open.delete(ip);
    }
  }

  return {
    async lookup(ips) {
      const unique = [...new Set(ips)];
      const fresh = unique.filter((ip) => !open.has(ip));
      const found = fresh.length > 0 ? await cache.getMany(fresh) : new Map<string, IpObject | null>();
      let error: ApiError | null = null;
      const pending: Array<[string, Promise<IpObject | null>]> = [];
      for (const ip of unique) {
        if (found.has(ip)) continue;
        let entry = open.get(ip);
        if (!entry) {
          const blocked = backoff.blocking();
          if (blocked) {
            error = blocked;
            continue;
          }
          entry = waiting();
          open.set(ip, entry);
          queue.push(ip);
        }
        pending.push([ip, entry.promise]);
      }
      if (queue.length > 0) schedule();
      const settled = await Promise.allSettled(pending.map(([, promise]) => promise));
      settled.forEach((result, i) => {
        if (result.status === "fulfilled") found.set(pending[i]![0], result.value);
        else error = result.reason as ApiError;
      });
      return { found, error };
    },
  };
}
