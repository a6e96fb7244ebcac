import { describe, expect, it } from "vitest";
import { RoundRobin } from "./round-robin.js";

describe("RoundRobin", () => {
  it("gives each key's oldest item in turn, the key then going to the back", () => {
    const queue = new RoundRobin<string, string>();
    for (const item of ["a1", "a2", "a3"]) queue.push("a", item);
    queue.push("b", "b1");
    queue.push("c", "c1");
    expect([queue.size, queue.countOf("a"), queue.countOf("b"), queue.countOf("z")]).toEqual([5, 3, 1, 0]);
    expect(queue.peek()).toBe("a1");
    const taken: Array<string | undefined> = [];
    while (queue.size) taken.push(queue.shift());
    expect(taken).toEqual(["a1", "b1", "c1", "a2", "a3"]);
    expect([queue.shift(), queue.peek(), queue.size]).toEqual([undefined, undefined, 0]);
  });

  it("a key that comes back after emptying takes its place at the back", () => {
    const queue = new RoundRobin<number, string>();
    queue.push(1, "x");
    queue.push(2, "y");
    expect(queue.shift()).toBe("x");
    queue.push(1, "x2");
    queue.push(3, "z");
    expect([queue.shift(), queue.shift(), queue.shift()]).toEqual(["y", "x2", "z"]);
  });

  it("removes an item that gave up, wherever it waits, and only once", () => {
    const queue = new RoundRobin<string, object>();
    const [a1, a2, b1] = [{}, {}, {}];
    queue.push("a", a1);
    queue.push("a", a2);
    queue.push("b", b1);
    expect(queue.remove("a", a1)).toBe(true);
    expect(queue.remove("a", a1)).toBe(false);
    expect(queue.remove("b", a2)).toBe(false);
    expect([queue.size, queue.peek()]).toEqual([2, a2]);
    expect(queue.remove("a", a2)).toBe(true);
    // a key left empty has no turn any more
    expect([queue.countOf("a"), queue.peek(), queue.size]).toEqual([0, b1, 1]);
  });
});
