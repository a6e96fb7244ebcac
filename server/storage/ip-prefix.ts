/**
 * Prefix ipSearch on the ip_key index. The ip text of every keyed row is the canonical text of
 * its key (the engine stores only parseIp's canonical text, lib/ip/parse.ts), so a text prefix
 * confines the key to a few ranges and one random-order ip index serves both kinds of ipSearch:
 * each inserted row then dirties one random index page instead of two. Rows without a key
 * (invalid inputs) are found by their text in a small partial index.
 *
 * Canonical text: IPv4 as a dotted quad without leading zeros; IPv6 as RFC 5952 (lower-case hex
 * groups without leading zeros, the longest run of two or more zero groups as "::"), and IPv4-
 * mapped addresses as "::ffff:" + dotted quad.
 */
import { foldAscii, prefixUpperBound, rangeKeys } from "./ip-bytes.js";
import type { IpFilter } from "./types.js";

/** An inclusive range of ip_key values. */
export interface KeyRange {
  first: Uint8Array;
  last: Uint8Array;
  /**
   * Every key in the range has a canonical text that starts with the prefix, so the rows need no
   * text check (and counts stay index-only). When false, the range may hold non-matching keys.
   */
  exact: boolean;
}

const IPV4_KEY_LENGTH = 5;
const IPV6_KEY_LENGTH = 17;
const MAPPED_TEXT = "::ffff:";
/** key bytes of ::ffff:0:0/96 before the embedded IPv4 address */
const MAPPED_KEY_HEAD = [6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

/**
 * ip_key ranges that hold every address whose canonical text starts with `prefix` (a superset:
 * they may hold more, marked by `exact: false`). Sorted and disjoint. An empty prefix gives both
 * whole families; text that no address starts with gives none.
 */
export function prefixKeyRanges(prefix: string): KeyRange[] {
  const text = foldAscii(prefix);
  if (text === "") return [span([4], [], 0, 0xffffffff, 4, true), span([6], [], 0, 0, 0, true)];
  return mergeRanges([...dottedRanges(text, [4]), ...mappedRanges(text), ...hexRanges(text)]);
}

/** One index scan of an ipSearch: an ip_key range, or (key null) the rows without a key. */
export interface IpScan {
  key: { first: Uint8Array; last: Uint8Array } | null;
  /** also require the text range (`IpSearchPlan.text`) row by row */
  checkText: boolean;
}

export interface IpSearchPlan {
  /** prefix search: the ip text range of all matches (`ip >= from AND ip < to`); null for CIDR */
  text: { from: string; to: string } | null;
  /** disjoint scans whose union is exactly the matching rows */
  scans: IpScan[];
}

/** How the backends find an ipSearch's rows; null when nothing filters (no ipSearch, or an empty prefix). */
export function ipSearchPlan(filter: IpFilter | undefined): IpSearchPlan | null {
  if (!filter || (filter.kind === "prefix" && filter.prefix === "")) return null;
  if (filter.kind === "range") return { text: null, scans: [{ key: rangeKeys(filter), checkText: false }] };
  const from = foldAscii(filter.prefix);
  const keyed = prefixKeyRanges(from).map((range): IpScan => ({ key: range, checkText: !range.exact }));
  return { text: { from, to: prefixUpperBound(from) }, scans: [...keyed, { key: null, checkText: true }] };
}

// ---- IPv4, and the dotted tail of IPv4-mapped IPv6

/** Keys `[...head, a, b, c, d]` whose dotted quad starts with `text`. */
function dottedRanges(text: string, head: number[]): KeyRange[] {
  if (!/^[0-9.]*$/.test(text)) return [];
  const parts = text.split(".");
  if (parts.length > 4) return [];
  const octets = parts.slice(0, -1).map((part) => (/^(0|[1-9][0-9]{0,2})$/.test(part) && Number(part) <= 255 ? Number(part) : -1));
  if (octets.includes(-1)) return [];
  // Every address in these ranges prints as the fixed octets, then one whose digits start with
  // the partial octet: exact.
  return valueRuns(parts.at(-1)!, 10, 0xff).map(([lo, hi]) => span(head, octets, lo, hi, 1, true));
}

/** IPv4-mapped addresses print as "::ffff:" + dotted quad (lib/ip/parse.ts). */
function mappedRanges(text: string): KeyRange[] {
  if (MAPPED_TEXT.startsWith(text)) return [span(MAPPED_KEY_HEAD, [], 0, 0xffffffff, 4, true)];
  if (text.startsWith(MAPPED_TEXT)) return dottedRanges(text.slice(MAPPED_TEXT.length), MAPPED_KEY_HEAD);
  return [];
}

// ---- IPv6 in hex groups

const GROUP = /^(0|[1-9a-f][0-9a-f]{0,3})$/;

/** "a:b:c" → complete groups [a, b] and the partial last one "c"; null when a complete one is not canonical. */
function splitGroups(text: string): { full: number[]; partial: string } | null {
  const parts = text.split(":");
  const full = parts.slice(0, -1);
  if (!full.every((group) => GROUP.test(group))) return null;
  return { full: full.map((group) => parseInt(group, 16)), partial: parts.at(-1)! };
}

function hexRanges(prefix: string): KeyRange[] {
  if (!/^[0-9a-f:]*$/.test(prefix)) return [];
  // Text only starts with a colon as "::".
  const text = prefix === ":" ? "::" : prefix;
  const gap = text.indexOf("::");
  if (gap < 0) {
    const groups = splitGroups(text);
    if (!groups || groups.full.length > 7) return [];
    // Without a zero among the groups before the partial one, no "::" can come before it, so the
    // address prints exactly these groups first. A partial "0" may be the start of a "::".
    const exact = !groups.full.includes(0) && groups.partial !== "0";
    return groupSpans(groups.full, groups.partial, exact);
  }
  const head = gap === 0 ? { full: [], partial: "" } : splitGroups(`${text.slice(0, gap)}:`);
  const tail = text.slice(gap + 2);
  const after = tail.startsWith(":") ? null : splitGroups(tail);
  if (!head || !after) return [];
  // "::" stands for two or more zero groups (RFC 5952); one is tried as well (wider, never
  // narrower). Only groups up to the first partial one narrow the key; later text is ignored.
  const ranges: KeyRange[] = [];
  const width = (zeros: number) => head.full.length + zeros + after.full.length + (after.partial ? 1 : 0);
  for (let zeros = 1; width(zeros) <= 8; zeros++) {
    ranges.push(...groupSpans([...head.full, ...Array<number>(zeros).fill(0), ...after.full], after.partial, false));
  }
  return ranges;
}

/** Keys with these leading groups and a next group whose hex starts with `partial`. */
function groupSpans(groups: number[], partial: string, exact: boolean): KeyRange[] {
  const bytes = groups.flatMap((group) => [group >> 8, group & 0xff]);
  if (groups.length === 8) return partial === "" ? [span([6], bytes, 0, 0, 0, exact)] : [];
  return valueRuns(partial, 16, 0xffff).map(([lo, hi]) => span([6], bytes, lo, hi, 2, exact));
}

// ---- shared

/**
 * Values 0..max whose digits (no leading zeros) start with `digits`, as inclusive runs:
 * "1" in base 10 → 1, 10-19, 100-199 (up to 255).
 */
function valueRuns(digits: string, radix: 10 | 16, max: number): Array<[number, number]> {
  if (digits === "") return [[0, max]];
  if (!(radix === 10 ? /^[0-9]{1,3}$/ : /^[0-9a-f]{1,4}$/).test(digits)) return [];
  if (digits[0] === "0") return digits === "0" ? [[0, 0]] : [];
  const runs: Array<[number, number]> = [];
  for (let scale = 1, base = parseInt(digits, radix); base * scale <= max; scale *= radix) {
    runs.push([base * scale, Math.min(max, (base + 1) * scale - 1)]);
  }
  return runs;
}

/**
 * The keys `head + fixed + [lo..hi as `width` big-endian bytes] + anything`, head starting with
 * the version byte: the remaining bytes are 0 in `first` and 0xff in `last`.
 */
function span(head: number[], fixed: number[], lo: number, hi: number, width: number, exact: boolean): KeyRange {
  const length = head[0] === 6 ? IPV6_KEY_LENGTH : IPV4_KEY_LENGTH;
  const first = new Uint8Array(length);
  const last = new Uint8Array(length).fill(0xff);
  const at = head.length + fixed.length;
  first.set(head);
  first.set(fixed, head.length);
  last.set(head);
  last.set(fixed, head.length);
  for (let i = 0; i < width; i++) {
    const shift = 8 * (width - 1 - i);
    first[at + i] = Math.floor(lo / 2 ** shift) & 0xff;
    last[at + i] = Math.floor(hi / 2 ** shift) & 0xff;
  }
  return { first, last, exact };
}

export function compareKeys(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/**
 * Sorted, disjoint ranges covering the same keys, so their row counts add up. A range inside
 * another is dropped (the outer one finds its rows, checking text if it is not exact); ranges
 * that partly overlap become one, exact only if both were.
 */
function mergeRanges(ranges: KeyRange[]): KeyRange[] {
  const sorted = [...ranges].sort(
    (a, b) => compareKeys(a.first, b.first) || compareKeys(b.last, a.last) || Number(b.exact) - Number(a.exact),
  );
  const merged: KeyRange[] = [];
  for (const range of sorted) {
    const previous = merged.at(-1);
    if (!previous || compareKeys(range.first, previous.last) > 0) merged.push({ ...range });
    else if (compareKeys(range.last, previous.last) > 0) {
      previous.last = range.last;
      previous.exact &&= range.exact;
    }
  }
  return merged;
}
