import { describe, expect, it } from "vitest";
import { GroupCommitQueue, type GroupCommitOptions } from "./group-commit.js";

/**
 * A queue of numbers weighing their value whose first write waits for `release()`; it records
 * every group, and `during(n, queue)` runs while the n-th group is written (after the release).
 */
function heldQueue(options: GroupCommitOptions, during: (group: number, queue: GroupCommitQueue<number, number>) => void = () => {}) {
  const groups: number[][] = [];
  let release!: () => void;
  const firstWrite = new Promise<void>((r) => (release = r));
  const queue: GroupCommitQueue<number, number> = new GroupCommitQueue<number, number>(
    async (items) => {
      groups.push(items);
      if (groups.length === 1) await firstWrite;
      during(groups.length, queue);
      return items;
    },
    { weigh: (n) => n as number, ...options },
  );
  /** submits `first`, lets its write start, submits `later`, releases and waits for all */
  const run = async (first: number, later: number[]) => {
    const written = queue.submit(first);
    await new Promise((r) => setImmediate(r));
    const rest = later.map((n) => queue.submit(n));
    release();
    await Promise.all([written, ...rest]);
    await queue.drain();
  };
  return { groups, run };
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
    const groups: number[][] = [];
    let release!: () => void;
    const firstWrite = new Promise<void>((r) => (release = r));
    const queue = new GroupCommitQueue<number, number>(async (items) => {
      groups.push(items);
      if (groups.length === 1) await firstWrite;
      return items;
    });
    const first = queue.submit(1);
    await new Promise((r) => setImmediate(r));
    const later = [2, 3, 4].map((n) => queue.submit(n));
    release();
    await Promise.all([first, ...later]);
    expect(groups).toEqual([[1], [2, 3, 4]]);
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
    const groups: number[][] = [];
    const queue = new GroupCommitQueue<number, number>(
      async (items) => {
        groups.push(items);
        return items;
      },
      { weigh: (n) => n as number, maxWeight: 10 },
    );
    await Promise.all([6, 3, 4, 9].map((n) => queue.submit(n)));
    expect(groups).toEqual([[6, 3], [4], [9]]);
  });

  it("light items queued behind a heavy one are written first, in a group of their own, then the heavy one", async () => {
    const { groups, run } = heldQueue({ maxWeight: 100 });
    await run(100, [100, 100, 1, 100]);
    expect(groups).toEqual([[100], [1], [100], [100], [100]]);
  });

  it("light items go first by turns, so a stream of them cannot hold a heavy one back", async () => {
    // a light one arrives during every write
    const { groups, run } = heldQueue({ maxWeight: 100 }, (n, queue) => n < 5 && void queue.submit(1));
    await run(100, [100, 1, 100]);
    expect(groups).toEqual([[100], [1, 1], [100, 1], [1], [100, 1]]);
  });

  it("light items ride along with a heavy one's group only up to five light items' worth past the bound", async () => {
    // while the light one that went first is written, six more arrive behind the heavy one
    const { groups, run } = heldQueue({ maxWeight: 100, smallWeight: 2 }, (n, queue) => {
      if (n === 2) for (let i = 0; i < 6; i++) void queue.submit(2);
    });
    await run(100, [100, 2]);
    expect(groups).toEqual([[100], [2], [100, 2, 2, 2, 2, 2], [2]]);
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
