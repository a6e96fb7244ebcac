import { describe, expect, it } from "vitest";
import { LightAhead } from "./light-ahead.js";

/** the order `LightAhead` gives the writers in `queue` ("L…" light, "H…" heavy), one turn each */
function order(queue: string[]): string[] {
  const turns = new LightAhead();
  const waiting = [...queue];
  const went: string[] = [];
  while (waiting.length) went.push(waiting.splice(turns.next(waiting, (w) => w.startsWith("L")), 1)[0]!);
  return went;
}

describe("LightAhead", () => {
  it("sends the first light writer ahead of heavier ones that came before it", () => {
    expect(order(["H1", "H2", "L1"])).toEqual(["L1", "H1", "H2"]);
  });

  it("lets the oldest go right after a light one went, so a stream of light writers cannot hold a heavy one back", () => {
    expect(order(["H1", "L1", "L2", "L3"])).toEqual(["L1", "H1", "L2", "L3"]);
    expect(order(["L1", "H1", "L2"])).toEqual(["L1", "H1", "L2"]);
    expect(order(["H1", "H2", "L1", "L2"])).toEqual(["L1", "H1", "L2", "H2"]);
  });

  it("keeps the order of arrival among writers of one kind", () => {
    expect(order(["H1", "H2", "H3"])).toEqual(["H1", "H2", "H3"]);
    expect(order(["L1", "L2", "L3"])).toEqual(["L1", "L2", "L3"]);
  });
});
