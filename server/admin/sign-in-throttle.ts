/**
 * Growing delay on wrong admin tokens, per client address. Attempts from one address are handled
 * one after another, and each waits longer the more wrong tokens came before it, so guessing
 * in parallel is as slow as guessing in a row. A right token clears the address's record.
 *
 * The queue is short (`maxQueued`): one more attempt is answered "busy" at once instead of
 * waiting behind the others. An attempt whose client went away is not checked when its turn
 * comes, and one that is waiting out its delay stops waiting, so dropped connections do not keep
 * the queue (and the admin behind the same address) waiting.
 */
export interface SignInThrottleOptions {
  /** delay after the first wrong token; doubles with each further one */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** wrong tokens older than this are forgotten */
  forgetAfterMs?: number;
  /** attempts of one address waiting or running at once; default 3 */
  maxQueued?: number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  now?: () => number;
}

/** accepted: right token; refused: wrong token (or the client left); busy: the address's queue is full */
export type SignInOutcome = "accepted" | "refused" | "busy";

interface AddressRecord {
  failures: number;
  lastFailureAt: number;
  /** attempts of this address not yet answered */
  queued: number;
  /** the tail of this address's queue of attempts */
  queue: Promise<unknown>;
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

export class SignInThrottle {
  private readonly records = new Map<string, AddressRecord>();
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly forgetAfterMs: number;
  private readonly maxQueued: number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly now: () => number;

  constructor(options: SignInThrottleOptions = {}) {
    this.baseDelayMs = options.baseDelayMs ?? 250;
    this.maxDelayMs = options.maxDelayMs ?? 10_000;
    this.forgetAfterMs = options.forgetAfterMs ?? 15 * 60_000;
    this.maxQueued = options.maxQueued ?? 3;
    this.sleep = options.sleep ?? abortableSleep;
    this.now = options.now ?? Date.now;
  }

  /** the delay a wrong token gets after `failures` wrong ones (this one included) */
  delayFor(failures: number): number {
    if (failures <= 0) return 0;
    return Math.min(this.baseDelayMs * 2 ** (failures - 1), this.maxDelayMs);
  }

  failures(address: string): number {
    return this.current(address)?.failures ?? 0;
  }

  /**
   * Runs `check` in this address's queue; a wrong token is answered only after the delay.
   * `signal` is the request's: once aborted, the attempt is dropped or stops waiting.
   */
  async attempt(address: string, check: () => boolean, signal?: AbortSignal): Promise<SignInOutcome> {
    const record = this.current(address) ?? { failures: 0, lastFailureAt: 0, queued: 0, queue: Promise.resolve() };
    if (record.queued >= this.maxQueued) return "busy";
    this.records.set(address, record);
    record.queued += 1;
    const run = record.queue.then(async (): Promise<SignInOutcome> => {
      if (signal?.aborted) return "refused";
      if (check()) {
        this.records.delete(address);
        return "accepted";
      }
      record.failures += 1;
      record.lastFailureAt = this.now();
      await this.sleep(this.delayFor(record.failures), signal);
      return "refused";
    });
    record.queue = run.catch(() => undefined);
    try {
      return await run;
    } finally {
      record.queued -= 1;
    }
  }

  private current(address: string): AddressRecord | undefined {
    const record = this.records.get(address);
    if (record && record.failures > 0 && this.now() - record.lastFailureAt > this.forgetAfterMs) {
      record.failures = 0;
    }
    this.prune();
    return record;
  }

  /** keeps the map from growing without bound under many addresses */
  private prune(): void {
    if (this.records.size < 10_000) return;
    const cutoff = this.now() - this.forgetAfterMs;
    for (const [address, record] of this.records) {
      if (record.queued === 0 && record.lastFailureAt < cutoff) this.records.delete(address);
    }
  }
}
