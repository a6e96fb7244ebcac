/**
 * Long loops over a bulk give other requests a turn once they have held the event loop for
 * `sliceMs`, instead of every N items: the cost of an item varies (cached or not, v4 or v6, the
 * machine's load), the time another request waits is what matters.
 *
 * Paused loops resume one per turn of the event loop, in the order they paused. With one
 * `setImmediate` each, every bulk in progress would run its slice in the same turn, and a GET
 * arriving meanwhile would wait for all of them (ten bulks: 20 ms) at each step of its way.
 * A long loop's first slice takes its turn the same way (`begin`).
 *
 * 2 ms rather than 5: a GET waits out a slice at each of its few turns of the loop, so its p50
 * under 50 clients' bulks halved (11 → 6 ms on SQLite, 26 → 17 ms on PostgreSQL), with bulks as
 * fast (docs/storage.md "Group commit").
 */
export const SLICE_MS = 2;

/** how many items pass between two looks at the clock (a look costs about as much as a cheap item) */
const CHECK_EVERY = 32;

/** loops waiting for their turn, oldest first */
const paused: Array<() => void> = [];
let turnScheduled = false;

function resumeOne(): void {
  turnScheduled = false;
  // the next one is scheduled first: an immediate queued now runs in the next turn, after I/O
  if (paused.length > 1) scheduleTurn();
  paused.shift()?.();
}

function scheduleTurn(): void {
  if (turnScheduled) return;
  turnScheduled = true;
  setImmediate(resumeOne);
}

export class TimeSlice {
  private startedAt = performance.now();
  private count = 0;

  constructor(private readonly sliceMs = SLICE_MS) {}

  /**
   * Call before a loop's first item. A loop long enough to look at the clock waits for its turn
   * first, like a paused one: a bulk's next step starts right where its last step's final slice
   * ended (or another loop's did), and would otherwise add its first slice to that turn.
   */
  begin(items: number): Promise<void> | undefined {
    return items > CHECK_EVERY ? this.pause() : undefined;
  }

  /** Call once per item: true when the slice is used up and the loop should `await pause()`. */
  due(): boolean {
    if (++this.count % CHECK_EVERY !== 0) return false;
    return performance.now() - this.startedAt >= this.sliceMs;
  }

  /** Yields to the event loop (I/O, timers, other requests) until this loop's turn, then starts a new slice. */
  async pause(): Promise<void> {
    await new Promise<void>((resolve) => {
      paused.push(resolve);
      scheduleTurn();
    });
    this.startedAt = performance.now();
  }
}
