import { describe, expect, it } from "vitest";
import { turnEnd } from "./turn-end.js";

describe("turnEnd", () => {
  it("is one promise for the callers of a turn, settled after the turn's callbacks and microtasks", async () => {
    const order: string[] = [];
    const first = turnEnd();
    expect(turnEnd()).toBe(first);
    const settled = first.then(() => order.push("end"));
    queueMicrotask(() => order.push("microtask"));
    await settled;
    expect(order.slice(-1)).toEqual(["end"]);
    expect(order).toContain("microtask");
  });

  it("gives a new promise once the turn has ended", async () => {
    const first = turnEnd();
    await first;
    const next = turnEnd();
    expect(next).not.toBe(first);
    await next;
  });
});
