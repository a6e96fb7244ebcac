import { describe, expect, it } from "vitest";
import { TimeSlice } from "./time-slice.js";

const dueAt = (slice: TimeSlice, calls: number) => Array.from({ length: calls }, () => slice.due()).flatMap((due, i) => (due ? [i + 1] : []));

describe("TimeSlice", () => {
  it("says a slice is used up only once its time has passed, looking at the clock every 32 items", async () => {
    expect(dueAt(new TimeSlice(60_000), 1000)).toEqual([]);
    const spent = new TimeSlice(0);
    expect(dueAt(spent, 64)).toEqual([32, 64]);
  });

  it("pause lets work queued before it run first", async () => {
    const slice = new TimeSlice(60_000);
    let ran = false;
    setImmediate(() => (ran = true));
    await slice.pause();
    expect(ran).toBe(true);
    expect(dueAt(slice, 100)).toEqual([]);
  });

  it("a long loop begins in its turn, after the loops already paused; a short one begins at once", async () => {
    const order: string[] = [];
    const resumed = new TimeSlice(0).pause().then(() => order.push("paused before"));
    await new TimeSlice(0).begin(1000);
    order.push("long loop");
    await resumed;
    expect(order).toEqual(["paused before", "long loop"]);

    let turned = false;
    setImmediate(() => (turned = true));
    await new TimeSlice(0).begin(32);
    expect(turned).toBe(false);
  });

  it("paused loops resume one per turn of the event loop, oldest first, with I/O turns between", async () => {
    const order: string[] = [];
    const loop = async (name: string) => {
      const slice = new TimeSlice(0);
      for (let step = 0; step < 3; step++) {
        order.push(`${name}${step}`);
        await slice.pause();
      }
    };
    // a check-phase immediate queued in each turn marks where one turn ends
    let turns = 0;
    const tick = () => {
      turns++;
      if (turns < 20) setImmediate(tick);
    };
    setImmediate(tick);
    await Promise.all([loop("a"), loop("b"), loop("c")]);
    expect(order).toEqual(["a0", "b0", "c0", "a1", "b1", "c1", "a2", "b2", "c2"]);
    // nine pauses, one resumed per turn: at least nine turns went by
    expect(turns).toBeGreaterThanOrEqual(9);
  });
});
