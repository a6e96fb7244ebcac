import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { arrayLiteral, arrayLiterals } from "./array-literal.js";
import { TimeSlice } from "../../time-slice.js";

/** pg's own conversion of a JS array parameter, which arrayLiteral replaces (an internal module, untyped) */
const pgUtils = createRequire(import.meta.url)("pg/lib/utils.js") as { prepareValue(value: unknown): string };
const pgText = (values: unknown[]) => pgUtils.prepareValue(values);

describe("arrayLiteral", () => {
  it("means what pg's own array text means, for every kind of element a column holds", async () => {
    const text = ["plain", 'with "quotes"', "back\\slash \\\"both\"", "", "NULL", "{braces},commas", "ünïcödé 🌍", " spaced "];
    // characters JSON.stringify would escape in its own way (the block falls back to one element at a time)
    const escaped = ["line\nbreak", "tab\there", "\u0001", "back\\n", "lone \ud800"];
    const bytes = [Buffer.from([0, 1, 254, 255]), new Uint8Array([10, 20, 30]), new Uint8Array(new ArrayBuffer(8), 2, 3)];
    const numbers = [0, -1, 42, 2 ** 53 - 1, -32768];
    for (const column of [text, escaped, [...text, ...escaped], bytes, numbers, [null, "x", undefined, 7]]) {
      // numbers and strings: pg quotes every element, this only strings; the values are the same
      const ours = await arrayLiteral(column as never[]);
      expect(ours.replace(/"(-?\d+)"/g, "$1")).toBe(pgText(column).replace(/"(-?\d+)"/g, "$1"));
    }
    expect(await arrayLiteral([])).toBe(pgText([]));
  });

  it("refuses a number PostgreSQL would not take as one", async () => {
    await expect(arrayLiteral([1, Number.NaN])).rejects.toThrow("Not a storable number: NaN");
  });

  it("gives the event loop a turn within a long column, and keeps the order across pauses", async () => {
    const values = Array.from({ length: 200_000 }, (_, i) => `row ${i} "${i}"`);
    let turns = 0;
    const counting = setInterval(() => turns++, 0);
    const [literal] = await arrayLiterals([values], new TimeSlice(1));
    clearInterval(counting);
    expect(turns).toBeGreaterThan(0);
    expect(literal).toBe(pgText(values));
  });
});
