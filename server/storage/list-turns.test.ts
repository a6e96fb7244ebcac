import { describe, expect, it } from "vitest";
import { ListTurns } from "./list-turns.js";

/** a list that ends when told to */
function heldList(log: string[], name: string) {
  let end!: () => void;
  const ended = new Promise<void>((resolve) => (end = resolve));
  return {
    read: async () => {
      log.push(`start ${name}`);
      await ended;
      return name;
    },
    end,
  };
}

describe("lists taking turns", () => {
  it("reads at most `concurrency` at once; the projects waiting start one list each in turn", async () => {
    const turns = new ListTurns(2);
    const log: string[] = [];
    const lists = { a1: heldList(log, "a1"), a2: heldList(log, "a2"), a3: heldList(log, "a3"), a4: heldList(log, "a4"), b1: heldList(log, "b1"), c1: heldList(log, "c1") };
    const done = [
      turns.run(1, lists.a1.read),
      turns.run(1, lists.a2.read),
      turns.run(1, lists.a3.read),
      turns.run(1, lists.a4.read),
      turns.run(2, lists.b1.read),
      turns.run(3, lists.c1.read),
    ];
    await Promise.resolve();
    // two run; the rest wait, project 1's two in its queue, 2 and 3 behind it in turn
    expect(log).toEqual(["start a1", "start a2"]);
    expect(turns.queued).toBe(4);
    const next = async (end: () => void) => {
      end();
      await new Promise((resolve) => setImmediate(resolve));
      return log.at(-1);
    };
    // project 1 starts one list, then goes to the back behind 2 and 3
    expect(await next(lists.a1.end)).toBe("start a3");
    expect(await next(lists.a2.end)).toBe("start b1");
    expect(await next(lists.a3.end)).toBe("start c1");
    expect(await next(lists.b1.end)).toBe("start a4");
    lists.c1.end();
    lists.a4.end();
    expect(await Promise.all(done)).toEqual(["a1", "a2", "a3", "a4", "b1", "c1"]);
    expect(turns.queued).toBe(0);
  });

  it("runs lists of different projects side by side up to the bound", async () => {
    const turns = new ListTurns(2);
    const log: string[] = [];
    const [a, b, c] = [heldList(log, "a"), heldList(log, "b"), heldList(log, "c")];
    const done = [turns.run(1, a.read), turns.run(2, b.read), turns.run(3, c.read)];
    await Promise.resolve();
    expect(log).toEqual(["start a", "start b"]);
    b.end();
    await done[1];
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(["start a", "start b", "start c"]);
    a.end();
    c.end();
    await Promise.all(done);
  });

  it("a list that fails, even at once, passes its error on and frees its turn", async () => {
    const turns = new ListTurns(1);
    const failing = turns.run(1, () => {
      throw new Error("broken");
    });
    const next = turns.run(2, async () => "next");
    await expect(failing).rejects.toThrow("broken");
    expect(await next).toBe("next");
  });
});
