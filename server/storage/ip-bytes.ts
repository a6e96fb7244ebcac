/**
 * The byte form of an address that CIDR search runs on. A leading version byte (4 or 6) keeps
 * the two families in separate ranges of one index, so an IPv4 range never matches IPv6 rows.
 */
import ipaddr from "ipaddr.js";
import { parseCidr } from "../../lib/ip/cidr.js";
import { dottedQuadOctets } from "../../lib/ip/parse.js";
import type { IpFilter } from "./types.js";

/**
 * `[4, a, b, c, d]` or `[6, ...16 bytes]`; null when the text is not an address of that type.
 * With `block`, the key is a view of the block's bytes.
 */
export function ipToKey(ip: string, type: "ipv4" | "ipv6", block?: IpKeyBlock): Uint8Array | null {
  if (type === "ipv4") {
    // the engine writes IPv4 canonically: every row of a bulk then skips ipaddr's general parse
    const octets = dottedQuadOctets(ip);
    if (octets) return keyOf(4, octets, block);
  }
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(ip);
  } catch {
    return null;
  }
  if ((type === "ipv4") !== (parsed.kind() === "ipv4")) return null;
  return keyOf(type === "ipv4" ? 4 : 6, parsed.toByteArray(), block);
}

function keyOf(version: 4 | 6, bytes: readonly number[], block: IpKeyBlock | undefined): Uint8Array {
  const key = block?.take(1 + bytes.length) ?? new Uint8Array(1 + bytes.length);
  key[0] = version;
  key.set(bytes, 1);
  return key;
}

/** the longest key: the version byte and an IPv6 address */
const MAX_KEY_BYTES = 17;

/**
 * The keys of a batch's rows as views of one buffer: a Uint8Array of its own costs a row ~250
 * bytes of heap, a view of a shared one about half, and a 5000-row bulk's keys live until its
 * commit.
 */
export class IpKeyBlock {
  private readonly bytes: Uint8Array;
  private at = 0;

  constructor(keys: number) {
    this.bytes = new Uint8Array(keys * MAX_KEY_BYTES);
  }

  /** room for one key; null once the block is full */
  take(length: number): Uint8Array | null {
    if (this.at + length > this.bytes.length) return null;
    const key = this.bytes.subarray(this.at, this.at + length);
    this.at += length;
    return key;
  }
}

/** The type an ip key was built for (its version byte). */
export function keyType(key: Uint8Array): "ipv4" | "ipv6" {
  return key[0] === 4 ? "ipv4" : "ipv6";
}

/** The inclusive key range a CIDR filter covers. */
export function rangeKeys(filter: Extract<IpFilter, { kind: "range" }>): { first: Uint8Array; last: Uint8Array } {
  return {
    first: Uint8Array.from([filter.version, ...filter.first]),
    last: Uint8Array.from([filter.version, ...filter.last]),
  };
}

/**
 * ipSearch text (docs/api.md#endpoints) to a filter: a valid CIDR becomes a byte range, anything
 * else a case-insensitive prefix of the canonical ip text.
 */
export function parseIpSearch(text: string): IpFilter {
  const range = parseCidr(text);
  if (range) return { kind: "range", version: range.version, first: range.first, last: range.last };
  return { kind: "prefix", prefix: text };
}

const HAS_UPPER_ASCII = /[A-Z]/;

/**
 * Case folding for prefix search: ASCII only, the same as SQLite's and PostgreSQL's `lower()` on
 * the "C" collation, so the query value matches the expression index.
 */
export function foldAscii(text: string): string {
  // the test first: a replace with a function builds a new string even when nothing matches, and
  // every row of a bulk passes here
  return HAS_UPPER_ASCII.test(text) ? text.replace(/[A-Z]/g, (c) => c.toLowerCase()) : text;
}

/** Exclusive upper bound of all strings starting with `prefix` in binary (UTF-8) order. */
export function prefixUpperBound(prefix: string): string {
  return prefix + "\u{10FFFF}";
}
