/**
 * Growing delay on wrong admin tokens, per client address. Attempts from one address are handled
 * one after another, and each waits longer the more wrong tokens came before it, so guessing
 * in parallel is as slow as guessing in a row. A right token clears the address's record.
 */
export interface SignInThrottleOptions {
  /** delay after the first wrong token; doubles with each further one */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** wrong tokens older than this are forgotten */
  forgetAfterMs?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

interface AddressRecord {
  failures: number;
  lastFailureAt: number;
  /** the tail of this address's queue of attempts */
  queue: Promise<unknown>;
}

export class SignInThrottle {
  private readonly records = new Map<string, AddressRecord>();
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly forgetAfterMs: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;

  constructor(options: SignInThrottleOptions = {}) {
    this.baseDelayMs = options.baseDelayMs ?? 250;
    this.maxDelayMs = options.maxDelayMs ?? 10_000;
    this.forgetAfterMs = options.forgetAfterMs ?? 15 * 60_000;
    this.sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
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

  /** Runs `check` in this address's queue; a false result is answered only after the delay. */
  attempt(address: string, check: () => boolean): Promise<boolean> {
    const record = this.current(address) ?? { failures: 0, lastFailureAt: 0, queue: Promise.resolve() };
    this.records.set(address, record);
    const run = record.queue.then(async () => {
      if (check()) {
        this.records.delete(address);
        return true;
      }
      record.failures += 1;
      record.lastFailureAt = this.now();
      await this.sleep(this.delayFor(record.failures));
      return false;
    });
    record.queue = run.catch(() => undefined);
    return run;
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
    for (const [address, record] of this.records) if (record.lastFailureAt < cutoff) this.records.delete(address);
  }
}
