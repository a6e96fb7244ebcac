import { describe, expect, it } from "vitest";
import { GroupCommitQueue, observeGroupCommits, type GroupCommitOptions } from "./group-commit.js";

/**
 * A queue of numbers that records each group it writes; `holdFirst`: its first write waits for
 * `release()`; `alsoOnWrite`: what a write does then besides (the group's number, from 1, and the queue).
 */
function recordingQueue(
  options: GroupCommitOptions = {},
  holdFirst = false,
  alsoOnWrite?: (items: number[], nth: number, queue: GroupCommitQueue<number, number>) => unknown,
) {
  const groups: number[][] = [];
  let release = () => {};
  const firstWrite = holdFirst ? new Promise<void>((r) => (release = r)) : Promise.resolve();
  const queue: GroupCommitQueue<number, number> = new GroupCommitQueue<number, number>(async (items) => {
    groups.push(items);
    if (groups.length === 1) await firstWrite;
    await alsoOnWrite?.(items, groups.length, queue);
    return items;
  }, options);
  return { queue, groups, release: () => release() };
}

/**
 * A lightAlongside queue whose first write waits for `releaseFirst()` and whose writes of a group
 * holding a heavy item (100) wait for `releaseHeavy()`.
 */
function besideHeavyQueue(maxWeight: number) {
  let releaseHeavy = () => {};
  const heavyHeld = new Promise<void>((r) => (releaseHeavy = r));
  const { queue, groups, release } = recordingQueue({ weigh: (n) => n as number, maxWeight, lightAlongside: true }, true, (items) =>
    items.includes(100) ? heavyHeld : undefined,
  );
  return { queue, groups, releaseFirst: release, releaseHeavy: () => releaseHeavy() };
}

describe("GroupCommitQueue", () => {
  it("writes items submitted together as one group and resolves each with its own result", async () => {
    const groups: number[][] = [];
    const queue = new GroupCommitQueue<number, number>(async (items) => {
      groups.push(items);
      return items.map((n) => n * 2);
    });
    const results = await Promise.all([1, 2, 3, 4].map((n) => queue.submit(n)));
    expect(results).toEqual([2, 4, 6, 8]);
    expect(groups).toEqual([[1, 2, 3, 4]]);
  });

  it("collects items that arrive during a write into the next group", async () => {
    const { queue, groups, release } = recordingQueue({}, true);
    const first = queue.submit(1);
    await new Promise((r) => setImmediate(r));
    const later = [2, 3, 4].map((n) => queue.submit(n));
    release();
    await Promise.all([first, ...later]);
    expect(groups).toEqual([[1], [2, 3, 4]]);
  });

  it("reports the weight submitted and not yet taken into a group", async () => {
    const { queue, release } = recordingQueue({ weigh: (n) => n as number }, true);
    expect(queue.waitingWeight).toBe(0);
    const first = queue.submit(5);
    expect(queue.waitingWeight).toBe(5);
    await new Promise((r) => setImmediate(r));
    // 5 is being written; what arrives now waits for the next group
    expect(queue.waitingWeight).toBe(0);
    const later = [3, 4].map((n) => queue.submit(n));
    expect(queue.waitingWeight).toBe(7);
    release();
    await Promise.all([first, ...later]);
    expect(queue.waitingWeight).toBe(0);
  });

  it("isolates an item whose write fails: its neighbours still succeed", async () => {
    const queue = new GroupCommitQueue<number, number>(async (items) => {
      if (items.includes(13)) throw new Error("bad item");
      return items;
    });
    const settled = await Promise.allSettled([1, 13, 2].map((n) => queue.submit(n)));
    expect(settled.map((s) => s.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
  });

  it("splits groups by weight", async () => {
    const { queue, groups } = recordingQueue({ weigh: (n) => n as number, maxWeight: 10 });
    await Promise.all([6, 3, 4, 9].map((n) => queue.submit(n)));
    expect(groups).toEqual([[6, 3], [4], [9]]);
  });

  it("a light item queued behind heavy ones is written ahead of them, in a group of its own", async () => {
    const { queue, groups, release } = recordingQueue({ weigh: (n) => n as number, maxWeight: 100 }, true);
    const first = queue.submit(100);
    await new Promise((r) => setImmediate(r));
    const later = [100, 100, 1, 100].map((n) => queue.submit(n));
    release();
    await Promise.all([first, ...later]);
    expect(groups).toEqual([[100], [1], [100], [100], [100]]);
  });

  it("tells writeGroup whether the group is light, including a light group beside a heavy one", async () => {
    const writes: string[] = [];
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    const queue = new GroupCommitQueue<number, number>(
      async (items, light) => {
        writes.push(`${items.join("+")} ${light ? "light" : "heavy"}`);
        if (items[0] === 100) await held;
        return items;
      },
      { weigh: (n) => n as number, maxWeight: 100, lightAlongside: true },
    );
    const bulk = queue.submit(100);
    await new Promise((r) => setImmediate(r));
    const gets = [queue.submit(1), queue.submit(1)];
    await Promise.all(gets); // written beside the bulk, which still waits
    release();
    await bulk;
    await Promise.all([queue.submit(1), queue.submit(1), queue.submit(30)]);
    expect(writes).toEqual(["100 heavy", "1+1 light", "1+1 light", "30 heavy"]);
  });

  it("a light item at the head never shares a transaction with a heavy one behind it", async () => {
    const { queue, groups } = recordingQueue({ weigh: (n) => n as number, maxWeight: 100 });
    await Promise.all([queue.submit(1), queue.submit(50), queue.submit(1)]);
    expect(groups).toEqual([[1, 1], [50]]);
  });

  it("light items do not ride along with a heavy group when the writer makes way for them", async () => {
    const { queue, groups, release } = recordingQueue({ weigh: (n) => n as number, maxWeight: 100, makesWay: () => true }, true);
    const first = queue.submit(1);
    await new Promise((r) => setImmediate(r));
    const later = [100, 1, 1].map((n) => queue.submit(n));
    release();
    await Promise.all([first, ...later]);
    // without makesWay: [[1], [100, 1, 1]]
    expect(groups).toEqual([[1], [100], [1, 1]]);
  });

  it("says when a light item waits behind the group being written, and when the next group is taken or none is left", async () => {
    const events: string[] = [];
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    const queue = new GroupCommitQueue<number, number>(
      async (items) => {
        events.push(`write ${items.join("+")}`);
        if (items[0] === 100) await held;
        return items;
      },
      { weigh: (n) => n as number, maxWeight: 100, onLightWaiting: () => events.push("light waiting"), onTake: () => events.push("take") },
    );
    const bulk = queue.submit(100);
    await new Promise((r) => setImmediate(r));
    const heavy = queue.submit(90); // heavy: nobody is told
    const light = queue.submit(1);
    release();
    await Promise.all([bulk, heavy, light]);
    expect(events).toEqual(["take", "write 100", "light waiting", "take", "write 1", "take", "write 90", "take"]);
  });

  it("light groups take turns with heavy ones: a stream of light items does not hold a heavy one back", async () => {
    const groups: number[][] = [];
    let queue!: GroupCommitQueue<number, number>;
    let lightLeft = 3;
    queue = new GroupCommitQueue<number, number>(
      async (items) => {
        groups.push(items);
        // each write sees a new light item arrive, as under steady GET load
        if (lightLeft-- > 0) void queue.submit(1);
        return items;
      },
      { weigh: (n) => n as number, maxWeight: 100 },
    );
    await Promise.all([queue.submit(1), queue.submit(100), queue.submit(100)]);
    await queue.drain();
    // the head light item is a light turn; then heavy and light turns alternate (the light item
    // that arrived during a light group rides along with the heavy one)
    expect(groups).toEqual([[1], [100, 1], [1], [100, 1]]);
  });

  it("light items that arrive during a light group ride along with the heavy one, up to five light items' worth", async () => {
    // seven light items arrive while the light group is written
    const { queue, groups, release } = recordingQueue({ weigh: (n) => n as number, maxWeight: 100, smallWeight: 2 }, true, (_, nth, queue) => {
      if (nth === 2) for (let i = 0; i < 7; i++) void queue.submit(2);
    });
    const first = queue.submit(100);
    await new Promise((r) => setImmediate(r));
    const later = [100, 2].map((n) => queue.submit(n));
    release();
    await Promise.all([first, ...later]);
    await queue.drain();
    expect(groups).toEqual([[100], [2], [100, 2, 2, 2, 2, 2], [2, 2]]);
  });

  it("with lightAlongside, light items that arrive during a heavy group are written beside it, not after it", async () => {
    const { queue, groups, release } = recordingQueue({ weigh: (n) => n as number, maxWeight: 100, lightAlongside: true }, true);
    const heavy = queue.submit(100);
    await new Promise((r) => setImmediate(r));
    const light = [1, 2].map((n) => queue.submit(n));
    const heavier = queue.submit(50);
    expect(await Promise.all(light)).toEqual([1, 2]);
    expect(groups).toEqual([[100], [1, 2]]);
    let drained = false;
    const drain = queue.drain().then(() => (drained = true));
    await new Promise((r) => setImmediate(r));
    expect(drained).toBe(false);
    release();
    await Promise.all([heavy, heavier, drain]);
    expect(groups).toEqual([[100], [1, 2], [50]]);
  });

  it("asks a lightAlongside function at the time: while it says no, light items wait for the heavy group", async () => {
    let beside = false;
    const { queue, groups, release } = recordingQueue({ weigh: (n) => n as number, maxWeight: 100, lightAlongside: () => beside }, true);
    const heavy = queue.submit(100);
    await new Promise((r) => setImmediate(r));
    const waiting = queue.submit(1);
    await new Promise((r) => setImmediate(r));
    expect(groups).toEqual([[100]]);
    beside = true;
    const light = queue.submit(2);
    // both go beside it now: the one that waited and the new one
    expect(await Promise.all([waiting, light])).toEqual([1, 2]);
    expect(groups).toEqual([[100], [1, 2]]);
    release();
    await heavy;
  });

  it("with lightAlongside, light items queued among heavy ones are written beside their group, not inside it", async () => {
    const { queue, groups, releaseFirst, releaseHeavy } = besideHeavyQueue(1000);
    const first = queue.submit(1);
    await new Promise((r) => setImmediate(r));
    // during the light group, in this order: the oldest goes next, and two heavy ones fit in one group
    const heavy = [queue.submit(100), queue.submit(100)];
    const light = queue.submit(2);
    const heavyAfter = queue.submit(100);
    releaseFirst();
    const stuck = new Promise((r) => setTimeout(() => r("still waiting: inside the heavy group"), 2000));
    expect(await Promise.race([light, stuck])).toBe(2);
    expect(groups).toEqual([[1], [100, 100, 100], [2]]);
    releaseHeavy();
    await Promise.all([first, ...heavy, heavyAfter]);
  });

  it("with lightAlongside, light items left behind by a heavy group are written beside it", async () => {
    const { queue, groups, releaseFirst, releaseHeavy } = besideHeavyQueue(100);
    const first = queue.submit(1);
    await new Promise((r) => setImmediate(r));
    // during the light group: a heavy item, then more light ones than can ride along with it
    const heavy = queue.submit(100);
    const light = Array.from({ length: 6 }, () => queue.submit(2));
    releaseFirst();
    expect(await light[5]).toBe(2);
    // without lightAlongside: [[1], [100, 2, 2, 2, 2, 2], [2]], five riding along inside it
    expect(groups).toEqual([[1], [100], [2, 2, 2, 2, 2, 2]]);
    releaseHeavy();
    await Promise.all([first, heavy, ...light]);
  });

  it("with lightAlongside, light items arriving during a light group still wait for the next group", async () => {
    const { queue, groups, release } = recordingQueue({ weigh: (n) => n as number, maxWeight: 100, lightAlongside: true }, true);
    const first = queue.submit(1);
    await new Promise((r) => setImmediate(r));
    const later = [2, 1].map((n) => queue.submit(n));
    await new Promise((r) => setTimeout(r, 5));
    expect(groups).toEqual([[1]]);
    release();
    await Promise.all([first, ...later]);
    expect(groups).toEqual([[1], [2, 1]]);
  });

  it("tells observers each group's submissions, rows and how long its write took", async () => {
    const reports: Array<{ items: number; weight: number; seconds: number }> = [];
    const stop = observeGroupCommits((group) => reports.push(group));
    try {
      const queue = new GroupCommitQueue<number, number>(
        async (items) => {
          await new Promise((r) => setTimeout(r, 30));
          return items;
        },
        { weigh: (n) => n as number },
      );
      await Promise.all([3, 4].map((n) => queue.submit(n)));
    } finally {
      stop();
    }
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ items: 2, weight: 7 });
    expect(reports[0]!.seconds).toBeGreaterThanOrEqual(0.025);
    expect(reports[0]!.seconds).toBeLessThan(5);
  });

  it("drain waits for items still being prepared, and a failed preparation rejects only its caller", async () => {
    const written: number[] = [];
    const queue = new GroupCommitQueue<number, number>(async (items) => {
      written.push(...items);
      return items;
    });
    let ready!: (n: number) => void;
    const later = queue.submitWhenReady(new Promise<number>((resolve) => (ready = resolve)));
    const failed = queue.submitWhenReady(Promise.reject(new Error("encode failed")));
    const drained = queue.drain();
    setTimeout(() => ready(7), 20);
    await drained;
    expect(written).toEqual([7]);
    expect(await later).toBe(7);
    await expect(failed).rejects.toThrow("encode failed");
  });
});
