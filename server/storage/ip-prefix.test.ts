/**
 * prefixKeyRanges against brute force: for thousands of addresses of every shape (IPv4, IPv6
 * with and without zero runs, IPv4-mapped and look-alikes) and prefixes cut from their canonical
 * texts at every length plus random ones, every address whose text starts with the prefix has
 * its key in a range, and every key in an `exact` range has a text that starts with the prefix.
 */
import ipaddr from "ipaddr.js";
import { describe, expect, it } from "vitest";
import { parseIp } from "../../lib/ip/parse.js";
import { mulberry32 } from "../../test/helpers/random-addresses.js";
import { ipToKey } from "./ip-bytes.js";
import { compareKeys, prefixKeyRanges, type KeyRange } from "./ip-prefix.js";

const SEED = 20261122;
// seeded, so a failure can be replayed
const next32 = mulberry32(SEED);
const random = () => next32() / 4294967296;
const int = (n: number) => Math.floor(random() * n);
const pick = <T>(values: readonly T[]): T => values[int(values.length)]!;

/** Octets and groups near the digit-count boundaries, where prefix ranges split. */
const OCTETS = [0, 1, 2, 9, 10, 19, 20, 25, 99, 100, 199, 200, 249, 250, 255];
const GROUPS = [0, 1, 0xf, 0x10, 0xff, 0x100, 0xfff, 0x1000, 0xfffe, 0xffff, 0x2001, 0xdb8];
const octet = () => (random() < 0.5 ? pick(OCTETS) : int(256));
const group = (zeroShare: number) => (random() < zeroShare ? 0 : random() < 0.5 ? pick(GROUPS) : int(0x10000));

function randomGroups(): number[] {
  const shape = int(6);
  if (shape === 0) return [0, 0, 0, 0, 0, 0xffff, (octet() << 8) | octet(), (octet() << 8) | octet()]; // mapped
  if (shape === 1) {
    // look-alikes of mapped: ffff elsewhere, fffe, or an IPv4-sized tail without ffff
    const g = [0, 0, 0, 0, 0, 0, 0, 0];
    const at = pick([4, 5, 6]);
    g[at] = pick([0xffff, 0xfffe, 0, 1]);
    for (let i = at + 1; i < 8; i++) g[i] = group(0.3);
    return g;
  }
  if (shape === 2) {
    // one explicit zero run of any length at any place
    const g = Array.from({ length: 8 }, () => group(0.1));
    const start = int(8);
    const length = 1 + int(8 - start);
    for (let i = start; i < start + length; i++) g[i] = 0;
    return g;
  }
  // random groups, from sparse to mostly zero (several runs, ties)
  const zeroShare = pick([0, 0.2, 0.5, 0.8]);
  return Array.from({ length: 8 }, () => group(zeroShare));
}

interface Address {
  text: string;
  key: Uint8Array;
}

function address(input: string): Address {
  const parsed = parseIp(input);
  if (!parsed) throw new Error(`not an address: ${input}`);
  return { text: parsed.ip, key: ipToKey(parsed.ip, parsed.type)! };
}

function randomAddress(): Address {
  if (random() < 0.35) return address([octet(), octet(), octet(), octet()].join("."));
  return address(randomGroups().map((g) => g.toString(16)).join(":"));
}

const inRange = (key: Uint8Array, range: KeyRange) => compareKeys(range.first, key) <= 0 && compareKeys(key, range.last) <= 0;

/** A uniformly random key of the range's length between its bounds (rejection sampling on the bytes that differ). */
function keyInside(range: KeyRange): Uint8Array {
  for (;;) {
    const key = Uint8Array.from(range.first);
    let i = 0;
    while (i < key.length && range.first[i] === range.last[i]) i++;
    for (let j = i; j < key.length; j++) key[j] = j === i ? range.first[i]! + int(range.last[i]! - range.first[i]! + 1) : int(256);
    if (inRange(key, range)) return key;
  }
}

/** The canonical text of a key, the way the engine would have stored it. */
function textOf(key: Uint8Array): string {
  return parseIp(ipaddr.fromByteArray(Array.from(key.subarray(1))).toString())!.ip;
}

describe("prefixKeyRanges", () => {
  it("splits an IPv4 prefix into exact ranges", () => {
    const ranges = prefixKeyRanges("45.1").map((r) => [Array.from(r.first), Array.from(r.last), r.exact]);
    expect(ranges).toEqual([
      [[4, 45, 1, 0, 0], [4, 45, 1, 255, 255], true],
      [[4, 45, 10, 0, 0], [4, 45, 19, 255, 255], true],
      [[4, 45, 100, 0, 0], [4, 45, 199, 255, 255], true],
    ]);
  });

  it("covers everything for an empty prefix and nothing for text no address starts with", () => {
    expect(prefixKeyRanges("").map((r) => [r.first.length, r.first[0], r.last.every((b, i) => i === 0 || b === 255)])).toEqual([
      [5, 4, true],
      [17, 6, true],
    ]);
    for (const text of ["hello", "1.2.3.4.", "01.", "256.", "1:2:3:4:5:6:7:8:", ":1", "1:::", "::ffff:01", "12345", "00"]) {
      expect(prefixKeyRanges(text), text).toEqual([]);
    }
  });

  it("finds IPv4-mapped addresses by their dotted tail", () => {
    const ranges = prefixKeyRanges("::ffff:1.2");
    const mapped = address("::ffff:1.200.3.4");
    expect(ranges.some((r) => inRange(mapped.key, r))).toBe(true);
    expect(ranges.some((r) => inRange(address("::ffff:1.3.0.0").key, r))).toBe(false);
  });

  it("is a superset of brute force, and exact where it says so", () => {
    const addresses = Array.from({ length: 4000 }, randomAddress);
    for (const fixed of ["::", "::1", "::ffff:0.0.0.0", "::ffff:1", "1::", "0.0.0.0", "255.255.255.255", "ffff::", "1:0:0:2::3"]) {
      addresses.push(address(fixed));
    }

    // every cut of every address's own text finds it
    let cuts = 0;
    for (const a of addresses) {
      for (let length = 0; length <= a.text.length; length++) {
        const prefix = a.text.slice(0, length);
        const ranges = prefixKeyRanges(prefix);
        if (!ranges.some((r) => inRange(a.key, r))) throw new Error(`seed ${SEED}: ${a.text} not in the ranges of "${prefix}"`);
        cuts++;
      }
    }
    expect(cuts).toBeGreaterThan(50_000);

    // a sample of cuts and random texts against all addresses, both directions
    const prefixes = new Set<string>();
    while (prefixes.size < 1200) {
      const a = pick(addresses);
      prefixes.add(a.text.slice(0, int(a.text.length + 1)));
    }
    for (let i = 0; i < 300; i++) prefixes.add(Array.from({ length: 1 + int(8) }, () => pick([..."0123456789abcdef:.f:0"])).join(""));
    let exactKeys = 0;
    for (const prefix of prefixes) {
      const ranges = prefixKeyRanges(prefix);
      for (let i = 1; i < ranges.length; i++) expect(compareKeys(ranges[i - 1]!.last, ranges[i]!.first)).toBeLessThan(0);
      for (const a of addresses) {
        const range = ranges.find((r) => inRange(a.key, r));
        if (a.text.startsWith(prefix) && !range) throw new Error(`seed ${SEED}: ${a.text} starts with "${prefix}" but is in no range`);
        if (range?.exact && !a.text.startsWith(prefix)) throw new Error(`seed ${SEED}: ${a.text} is in an exact range of "${prefix}"`);
      }
      // random keys drawn from the exact ranges: their texts start with the prefix
      for (const range of ranges.filter((r) => r.exact)) {
        for (let i = 0; i < 5; i++) {
          const text = textOf(keyInside(range));
          if (!text.startsWith(prefix)) throw new Error(`seed ${SEED}: ${text} is in an exact range of "${prefix}"`);
          exactKeys++;
        }
      }
    }
    expect(exactKeys).toBeGreaterThan(1000);
  });
});
