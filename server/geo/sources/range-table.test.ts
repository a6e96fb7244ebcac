import { describe, expect, it } from "vitest";
import { RangeTableBuilder, addressWords } from "./range-table.js";

describe("RangeTable", () => {
  const v4 = new RangeTableBuilder(1);
  v4.add([10], [19], 1);
  v4.add([20], [20], 2);
  v4.add([40], [0xffffffff], 3);
  const table4 = v4.build();

  it.each([
    [9, -1],
    [10, 1],
    [15, 1],
    [19, 1],
    [20, 2],
    [21, -1],
    [39, -1],
    [40, 3],
    [0xffffffff, 3],
    [0, -1],
  ])("finds %d in range value %d", (ip, value) => {
    expect(table4.find([ip])).toBe(value);
  });

  it("compares IPv6 bounds word by word", () => {
    const v6 = new RangeTableBuilder(4);
    v6.add([0x20010db8, 0, 0, 0], [0x20010db8, 0xffffffff, 0xffffffff, 0xffffffff], 7);
    v6.add([0x2a001450, 0, 0, 0], [0x2a001450, 0, 0xffffffff, 0xffffffff], 8);
    const table6 = v6.build();
    expect(table6.find([0x20010db8, 5, 0, 1])).toBe(7);
    expect(table6.find([0x20010db7, 0xffffffff, 0xffffffff, 0xffffffff])).toBe(-1);
    expect(table6.find([0x2a001450, 0, 1, 0])).toBe(8);
    expect(table6.find([0x2a001450, 1, 0, 0])).toBe(-1);
    expect(table6.find([0xffffffff, 0, 0, 0])).toBe(-1);
  });

  it("turns address bytes into big-endian words", () => {
    expect(addressWords([8, 8, 8, 8])).toEqual([0x08080808]);
    expect(addressWords([255, 255, 255, 255])).toEqual([0xffffffff]);
    expect(addressWords([0x20, 0x01, 0x0d, 0xb8, ...new Array(12).fill(0)])).toEqual([0x20010db8, 0, 0, 0]);
  });

  it("finds nothing in an empty table", () => {
    expect(new RangeTableBuilder(1).build().find([5])).toBe(-1);
  });
});

describe("RangeTable /16 index", () => {
  it("finds ranges that start in an earlier /16 and ranges at /16 edges", () => {
    const builder = new RangeTableBuilder(1);
    builder.add([0x0a000000], [0x0a05ffff], 1); // 10.0.0.0 - 10.5.255.255, spans many /16s
    builder.add([0x0a060000], [0x0a060000], 2);
    builder.add([0x0a06ffff], [0x0a070001], 3);
    builder.add([0xfffffff0], [0xffffffff], 4);
    const table = builder.build();
    expect(table.find([0x0a000000])).toBe(1);
    expect(table.find([0x0a03abcd])).toBe(1);
    expect(table.find([0x0a05ffff])).toBe(1);
    expect(table.find([0x0a060000])).toBe(2);
    expect(table.find([0x0a060001])).toBe(-1);
    expect(table.find([0x0a06ffff])).toBe(3);
    expect(table.find([0x0a070001])).toBe(3);
    expect(table.find([0x0a070002])).toBe(-1);
    expect(table.find([0x09ffffff])).toBe(-1);
    expect(table.find([0xffffffff])).toBe(4);
    expect(table.find([0xffffffef])).toBe(-1);
  });

  it("agrees with a linear scan on random tables", () => {
    let seed = 42;
    const next = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0);
    const builder = new RangeTableBuilder(1);
    const ranges: Array<[number, number]> = [];
    let at = 0;
    while (ranges.length < 2000) {
      at += next() % 3_000_000;
      const end = at + (next() % 200_000);
      if (end > 0xffffffff) break;
      ranges.push([at, end]);
      builder.add([at], [end], ranges.length - 1);
      at = end + 1;
    }
    const table = builder.build();
    for (let i = 0; i < 20_000; i++) {
      const ip = next();
      const expected = ranges.findIndex(([first, last]) => ip >= first && ip <= last);
      expect(table.find([ip])).toBe(expected);
    }
  });
});
