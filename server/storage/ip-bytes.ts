/**
 * The byte form of an address that CIDR search runs on. A leading version byte (4 or 6) keeps
 * the two families in separate ranges of one index, so an IPv4 range never matches IPv6 rows.
 */
import ipaddr from "ipaddr.js";
import { parseCidr } from "../../lib/ip/cidr.js";
import { dottedQuadOctets } from "../../lib/ip/parse.js";
import type { IpFilter } from "./types.js";

/** `[4, a, b, c, d]` or `[6, ...16 bytes]`; null when the text is not an address of that type. */
export function ipToKey(ip: string, type: "ipv4" | "ipv6"): Uint8Array | null {
  if (type === "ipv4") {
    // the engine writes IPv4 canonically: every row of a bulk then skips ipaddr's general parse
    const octets = dottedQuadOctets(ip);
    if (octets) return Uint8Array.of(4, ...octets);
  }
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(ip);
  } catch {
    return null;
  }
  if ((type === "ipv4") !== (parsed.kind() === "ipv4")) return null;
  const bytes = parsed.toByteArray();
  return Uint8Array.from([type === "ipv4" ? 4 : 6, ...bytes]);
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

/**
 * Case folding for prefix search: ASCII only, the same as SQLite's and PostgreSQL's `lower()` on
 * the "C" collation, so the query value matches the expression index.
 */
export function foldAscii(text: string): string {
  return text.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/** Exclusive upper bound of all strings starting with `prefix` in binary (UTF-8) order. */
export function prefixUpperBound(prefix: string): string {
  return prefix + "\u{10FFFF}";
}
