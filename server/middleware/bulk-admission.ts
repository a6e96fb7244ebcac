/**
 * Admission for heavy requests (bulk POST /convert), by work, not by request: each request weighs
 * the body bytes it declares (a measure of the addresses it carries), and at most `capacity` of
 * weight runs at once in this process, so one full 5000-address bulk runs alone while small ones
 * share. A bounded number wait, served round-robin between keys, so one tenant's flood of bulks
 * cannot hold the others' behind it. Past the bounds (queue full, this key's share of it full, or
 * waited too long) the answer is 503 `Server busy` with Retry-After; nothing was read, converted,
 * stored or counted. A request waits before its body is read, so waiting costs no memory beyond
 * the socket. Requests that declare a small body (under `minBytes`) cost about what a GET does
 * and go straight through.
 */
import type { MiddlewareHandler } from "hono";
import { MESSAGES } from "../../lib/schemas/messages.js";
import type { AppEnv } from "../app-types.js";
import { RoundRobin } from "../round-robin.js";
import { ApiError } from "./envelope.js";

export interface BulkAdmissionOptions {
  /** weight (declared body bytes) running at once; a heavier request runs alone */
  capacity?: number;
  /** requests waiting, over all keys */
  maxQueued?: number;
  /** requests waiting for one key */
  maxQueuedPerKey?: number;
  /** a request not started within this long is refused */
  maxWaitMs?: number;
}

interface Waiter {
  weight: number;
  start: () => void;
  timer: NodeJS.Timeout;
}

export class AdmissionQueue {
  /** weight running */
  private running = 0;
  /** weight waiting */
  private waitingWeight = 0;
  /** waiters per key, started round-robin between keys */
  private readonly waiters = new RoundRobin<string, Waiter>();
  /** smoothed run time per unit of weight, for Retry-After (a 5000-address bulk ~ 85 KB ~ 250 ms) */
  private msPerUnit = 0.003;
  readonly capacity: number;
  private readonly maxQueued: number;
  private readonly maxQueuedPerKey: number;
  private readonly maxWaitMs: number;

  constructor(options: BulkAdmissionOptions = {}) {
    this.capacity = options.capacity ?? 96 * 1024;
    this.maxQueued = options.maxQueued ?? 16;
    this.maxQueuedPerKey = options.maxQueuedPerKey ?? 4;
    this.maxWaitMs = options.maxWaitMs ?? 5_000;
  }

  /** requests waiting for their turn */
  get waiting(): number {
    return this.waiters.size;
  }

  /** weight (declared body bytes) running now */
  get runningWeight(): number {
    return this.running;
  }

  /** seconds a refused client should wait: the work ahead of it, at least 1 */
  retryAfterSeconds(): number {
    return Math.max(1, Math.ceil(((this.running + this.waitingWeight) * this.msPerUnit) / 1000));
  }

  /** Resolves when `key` may run `weight` (call the returned `done` after), or rejects with 503. */
  async acquire(key: string, weight = this.capacity): Promise<() => void> {
    weight = Math.min(Math.max(weight, 1), this.capacity);
    if (this.waiters.size === 0 && this.fits(weight)) return this.begin(weight);
    if (this.waiters.size >= this.maxQueued || this.waiters.countOf(key) >= this.maxQueuedPerKey) throw this.busy();
    return new Promise<() => void>((resolve, reject) => {
      const waiter: Waiter = {
        weight,
        start: () => resolve(this.begin(weight)),
        timer: setTimeout(() => {
          this.remove(key, waiter);
          reject(this.busy());
        }, this.maxWaitMs),
      };
      this.waiters.push(key, waiter);
      this.waitingWeight += weight;
    });
  }

  private fits(weight: number): boolean {
    return this.running + weight <= this.capacity;
  }

  private begin(weight: number): () => void {
    this.running += weight;
    const started = performance.now();
    let finished = false;
    return () => {
      if (finished) return;
      finished = true;
      this.msPerUnit = 0.8 * this.msPerUnit + (0.2 * (performance.now() - started)) / weight;
      this.running -= weight;
      this.next();
    };
  }

  /**
   * Starts the first waiter of the key first in turn (that key then goes to the back), and the
   * next, while they fit. One that does not fit waits for the running ones rather than being
   * passed over, so a full bulk is not starved by a stream of small ones.
   */
  private next(): void {
    for (;;) {
      const first = this.waiters.peek();
      if (!first || !this.fits(first.weight)) return;
      const waiter = this.waiters.shift()!;
      this.waitingWeight -= waiter.weight;
      clearTimeout(waiter.timer);
      waiter.start();
    }
  }

  private remove(key: string, waiter: Waiter): void {
    if (!this.waiters.remove(key, waiter)) return;
    this.waitingWeight -= waiter.weight;
    // a heavy waiter that timed out at the head may have been holding lighter ones back
    this.next();
  }

  private busy(): ApiError {
    return new ApiError(503, MESSAGES.serverBusy, null, { "Retry-After": String(this.retryAfterSeconds()) });
  }
}

declare module "hono" {
  interface ContextVariableMap {
    /** set when the admission refused this request (503 Server busy), for the metrics */
    admissionRefused: boolean;
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
    // without a declared length (chunked) the body could be anything up to the limit: it runs alone
    let done: () => void;
    try {
      done = await queue.acquire(c.get("auth")?.project.id ?? "", Number.isFinite(declared) ? declared : queue.capacity);
    } catch (error) {
      c.set("admissionRefused", true);
      throw error;
    }
    try {
      await next();
    } finally {
      done();
    }
  };
}
