/**
 * Admission for heavy requests (bulk POST /convert): at most `concurrency` run at once in this
 * process, a bounded number wait, and the waiting ones are served round-robin between keys, so
 * one tenant's flood of bulks cannot hold the others' behind it. Past the bounds (queue full,
 * this key's share of it full, or waited too long) the answer is 503 `Server busy` with
 * Retry-After; nothing was read, converted, stored or counted. A request waits before its body
 * is read, so waiting costs no memory beyond the socket. Requests that declare a small body
 * (under `minBytes`) cost about what a GET does and go straight through.
 */
import type { MiddlewareHandler } from "hono";
import { MESSAGES } from "../../lib/schemas/messages.js";
import type { AppEnv } from "../app-types.js";
import { ApiError } from "./envelope.js";

export interface BulkAdmissionOptions {
  /** requests running at once */
  concurrency?: number;
  /** requests waiting, over all keys */
  maxQueued?: number;
  /** requests waiting for one key */
  maxQueuedPerKey?: number;
  /** a request not started within this long is refused */
  maxWaitMs?: number;
}

interface Waiter {
  start: () => void;
  timer: NodeJS.Timeout;
}

export class AdmissionQueue {
  private running = 0;
  private queued = 0;
  /** waiters per key; Map order is the round-robin order */
  private readonly byKey = new Map<string, Waiter[]>();
  /** smoothed run time of one request, for Retry-After */
  private averageMs = 200;
  readonly concurrency: number;
  private readonly maxQueued: number;
  private readonly maxQueuedPerKey: number;
  private readonly maxWaitMs: number;

  constructor(options: BulkAdmissionOptions = {}) {
    this.concurrency = options.concurrency ?? 2;
    this.maxQueued = options.maxQueued ?? 16;
    this.maxQueuedPerKey = options.maxQueuedPerKey ?? 4;
    this.maxWaitMs = options.maxWaitMs ?? 5_000;
  }

  /** seconds a refused client should wait: the work ahead of it, at least 1 */
  retryAfterSeconds(): number {
    return Math.max(1, Math.ceil(((this.running + this.queued) * this.averageMs) / this.concurrency / 1000));
  }

  /** Resolves when `key` may run (call the returned `done` after), or rejects with 503. */
  async acquire(key: string): Promise<() => void> {
    if (this.running < this.concurrency && this.queued === 0) return this.begin();
    const waiting = this.byKey.get(key);
    if (this.queued >= this.maxQueued || (waiting?.length ?? 0) >= this.maxQueuedPerKey) throw this.busy();
    return new Promise<() => void>((resolve, reject) => {
      const waiter: Waiter = {
        start: () => resolve(this.begin()),
        timer: setTimeout(() => {
          this.remove(key, waiter);
          reject(this.busy());
        }, this.maxWaitMs),
      };
      if (waiting) waiting.push(waiter);
      else this.byKey.set(key, [waiter]);
      this.queued++;
    });
  }

  private begin(): () => void {
    this.running++;
    const started = performance.now();
    let finished = false;
    return () => {
      if (finished) return;
      finished = true;
      this.averageMs = 0.8 * this.averageMs + 0.2 * (performance.now() - started);
      this.running--;
      this.next();
    };
  }

  /** the first waiter of the key first in turn; that key then goes to the back */
  private next(): void {
    if (this.running >= this.concurrency) return;
    const first = this.byKey.entries().next();
    if (first.done) return;
    const [key, waiters] = first.value;
    const waiter = waiters.shift()!;
    this.byKey.delete(key);
    if (waiters.length) this.byKey.set(key, waiters);
    this.queued--;
    clearTimeout(waiter.timer);
    waiter.start();
  }

  private remove(key: string, waiter: Waiter): void {
    const waiters = this.byKey.get(key);
    const at = waiters?.indexOf(waiter) ?? -1;
    if (at < 0) return;
    waiters!.splice(at, 1);
    if (!waiters!.length) this.byKey.delete(key);
    this.queued--;
  }

  private busy(): ApiError {
    return new ApiError(503, MESSAGES.serverBusy, null, { "Retry-After": String(this.retryAfterSeconds()) });
  }
}

export interface BulkAdmissionRoute {
  /** a POST declaring a Content-Length below this is not queued (default 16 KiB, ~1000 addresses) */
  minBytes?: number;
}

/** Runs the rest of the chain inside the queue, keyed by the authenticated key's project. */
export function bulkAdmission(queue: AdmissionQueue, options: BulkAdmissionRoute = {}): MiddlewareHandler<AppEnv> {
  const minBytes = options.minBytes ?? 16 * 1024;
  return async (c, next) => {
    if (c.req.method !== "POST") return next();
    const declared = Number(c.req.header("content-length") ?? NaN);
    if (declared < minBytes) return next();
    const done = await queue.acquire(c.get("auth")?.project.id ?? "");
    try {
      await next();
    } finally {
      done();
    }
  };
}
