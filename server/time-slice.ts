/**
 * Long loops over a bulk give other requests a turn once they have held the event loop for
 * `sliceMs`, instead of every N items: the cost of an item varies (cached or not, v4 or v6, the
 * machine's load), the time another request waits is what matters.
 */
export const SLICE_MS = 5;

/** how many items pass between two looks at the clock (a look costs about as much as a cheap item) */
const CHECK_EVERY = 32;

export class TimeSlice {
  private startedAt = performance.now();
  private count = 0;

  constructor(private readonly sliceMs = SLICE_MS) {}

  /** Call once per item: true when the slice is used up and the loop should `await pause()`. */
  due(): boolean {
    if (++this.count % CHECK_EVERY !== 0) return false;
    return performance.now() - this.startedAt >= this.sliceMs;
  }

  /** Yields to the event loop (I/O, timers, other requests), then starts a new slice. */
  async pause(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    this.startedAt = performance.now();
  }
}
