import { describe, expect, it } from "vitest";
import { MmdbDataScanner } from "./mmdb-data-scan.js";

/** a scanner over `bytes` as the whole data section, after 3 bytes of something else */
const scannerOf = (bytes: number[]) => new MmdbDataScanner(Buffer.from([9, 9, 9, ...bytes]), 3, bytes.length);
/** control byte: type in the top 3 bits, size in the low 5 */
const control = (type: number, size: number) => (type << 5) | size;
const utf8 = (text: string) => [control(2, text.length), ...Buffer.from(text)];

describe("MmdbDataScanner", () => {
  it("walks maps, arrays, pointers and long sizes, returning where the value ends", () => {
    const long = "x".repeat(40); // size 29 + 11, in one extra byte
    const value = [
      control(7, 2), // a map of two pairs
      ...utf8("a"),
      control(2, 29), 11, ...Buffer.from(long),
      ...utf8("b"),
      0x04, 0x04, // an extended type (7 + 4 = 11): an array of 4 items
      control(6, 2), 0x01, 0x02, // uint32 of 2 bytes
      control(1, 0), 0x00, // a pointer to offset 0 (this map), followed once
      (5 << 5) | 1, 0x07, // uint16 of 1 byte
      control(3, 8), 0, 0, 0, 0, 0, 0, 0, 0, // a double
    ];
    expect(scannerOf(value).scan(0)).toBe(value.length);
  });

  it("follows pointers of every width, each from its own base", () => {
    // a value at `at`, after filler that is no value at all (0xff: a map of ~65k pairs that runs
    // past the end), then a pointer to it: a wrong base lands in the filler and throws
    const pointingAt = (at: number, pointer: number[]) => {
      const bytes = [...new Array<number>(at).fill(0xff), ...utf8("hi"), ...pointer];
      return scannerOf(bytes).scan(at + 3);
    };
    expect(pointingAt(5, [control(1, 0), 0x05])).toBe(5 + 3 + 2);
    expect(pointingAt(2048 + 5, [control(1, 1 << 3), 0x00, 0x05])).toBe(2048 + 5 + 3 + 3);
    expect(pointingAt(526336 + 5, [control(1, 2 << 3), 0x00, 0x00, 0x05])).toBe(526336 + 5 + 3 + 4);
    expect(pointingAt(70000, [control(1, 3 << 3), 0x00, 0x01, 0x11, 0x70])).toBe(70000 + 3 + 5);
    expect(() => scannerOf([...utf8("hi"), control(1, 3 << 3), 0xff, 0xff, 0xff, 0xff]).scan(3)).toThrow(/pointer out of range/);
  });

  it("refuses values that run past the data section", () => {
    expect(() => scannerOf([control(2, 5), 0x61, 0x62]).scan(0)).toThrow(/runs past the data section/);
    expect(() => scannerOf([control(1, 2 << 3), 0x00]).scan(0)).toThrow(/runs past the data section/); // a 3-byte pointer cut short
    expect(() => scannerOf([control(2, 30), 0x01]).scan(0)).toThrow(/runs past the data section/); // a 2-byte size cut short
    expect(() => scannerOf([0x00]).scan(0)).toThrow(/runs past the data section/); // an extended type with no type byte
    expect(() => scannerOf([control(7, 1), ...utf8("a")]).scan(0)).toThrow(/runs past the data section/); // a map short of its value
  });

  it("refuses floats and doubles of the wrong size, wide integers and unknown types", () => {
    expect(() => scannerOf([control(3, 4), 0, 0, 0, 0]).scan(0)).toThrow(/double of 4 bytes/);
    expect(() => scannerOf([0x00 | 8, 0x08, 0, 0, 0, 0, 0, 0, 0, 0]).scan(0)).toThrow(/float of 8 bytes/);
    expect(() => scannerOf([control(5, 3), 0, 0, 0]).scan(0)).toThrow(/integer type 5 of 3 bytes/);
    expect(() => scannerOf([0x00, 0x0a]).scan(0)).toThrow(/unknown data type 17/);
  });
});
