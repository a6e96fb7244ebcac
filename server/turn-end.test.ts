import { describe, expect, it } from "vitest";
import { turnEnd } from "./turn-end.js";

describe("turnEnd", () => {
  it("is one promise for the callers of a turn, settled in the turn's check phase, after its microtasks", async () => {
    const order: string[] = [];
    setImmediate(() => order.push("immediate queued before"));
    const first = turnEnd();
    expect(turnEnd()).toBe(first);
    const settled = first.then(() => order.push("end"));
    queueMicrotask(() => order.push("microtask"));
    await settled;
    expect(order).toEqual(["microtask", "immediate queued before", "end"]);
  });

  it("gives a new promise once the turn has ended", async () => {
    const first = turnEnd();
    await first;
    const next = turnEnd();
    expect(next).not.toBe(first);
    await next;
  });
});
