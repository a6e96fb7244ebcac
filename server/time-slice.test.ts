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
});
