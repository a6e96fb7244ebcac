/**
 * Finds IPv4 and IPv6 addresses (compressed, full, IPv4-mapped) in a piece of page text. A loose
 * pattern finds candidates; lib/ip's strict parser decides, so the extension accepts exactly what
 * the server does. Public or not is decided here, locally: private and reserved addresses are
 * never sent.
 */
import ipaddr from "ipaddr.js";
import { isPublicAddress, parseCidr, parseIp } from "../../lib/ip/index.js";

export interface IpMatch {
  /** offsets into the text: text.slice(start, end) is the address as written */
  start: number;
  end: number;
  /** canonical form (what the cache and the server see) */
  ip: string;
  /** false for private, loopback, link-local, documentation and other reserved ranges */
  isPublic: boolean;
  /** for a CIDR block (`45.33.0.0/16`): its prefix length; `ip` is then the network address */
  prefix?: number;
}

// IPv6 first, so `::ffff:1.2.3.4` is one address and not an IPv4 inside something else. Neither
// may touch a word character, and a dotted number continuing after the match (`1.2.3.4.5`, a
// version string) is no address; a sentence's final period is fine.
const HEX = "[0-9A-Fa-f]";
const V4 = String.raw`(?:\d{1,3}\.){3}\d{1,3}`;
const END = String.raw`(?![\w%]|\.\d)`;
// An IPv4 may be followed by `:port`; an IPv6 may not be followed by another colon.
const V6 = String.raw`(?<![\w:.])(?:${HEX}{0,4}:){2,7}(?:${HEX}{1,4}|${V4})?(?!:)${END}`;
// A CIDR suffix is taken along (`45.33.0.0/16` is a network, not the address 45.33.0.0).
const CIDR = String.raw`(?:/(\d{1,3})(?!\d))?`;
const CANDIDATES = new RegExp(String.raw`(${V6}|(?<![\w.])${V4}${END})${CIDR}`, "g");
/**
 * Text right before a version number: `Version 4.2.1.0`, `version string 4.2.1.0`, `v 1.2.3.4`,
 * `release: 10.0.0.1`. A dotted quad there is a version, whatever it looks like. (`v1.2.3.4` is
 * already out: an address may not touch a word character.)
 */
const VERSION_BEFORE = /\b(?:version|ver|release|build|firmware|v)\.?(?:[ \t]+(?:string|number|no\.?|is|was))?[ \t]*[:=#]?[ \t]*$/i;

/** Cheap pre-check before the full scan: no digit, no address. */
export const MAY_CONTAIN_IP = /\d/;

/**
 * Addresses in `text`, in order, starting at offset `from`; at most `limit`, so a huge text node
 * can be done in slices without copying it.
 */
export function findIps(text: string, limit = Infinity, from = 0): IpMatch[] {
  const matches: IpMatch[] = [];
  const pattern = new RegExp(CANDIDATES);
  pattern.lastIndex = from;
  for (const match of text.matchAll(pattern)) {
    if (matches.length >= limit) break;
    const candidate = match[1]!;
    // `::` alone and `a::b`-like words in prose are valid syntax but never meant as addresses.
    if (!/\d/.test(candidate) && candidate.replace(/:/g, "").length < 2) continue;
    if (VERSION_BEFORE.test(text.slice(Math.max(0, match.index - 32), match.index))) continue;
    const parsed = parseIp(candidate);
    if (!parsed) continue;
    const network = match[2] === undefined ? null : networkOf(match[0]);
    if (network) {
      matches.push({ start: match.index, end: match.index + match[0].length, ...network });
      continue;
    }
    matches.push({
      start: match.index,
      end: match.index + candidate.length,
      ip: parsed.ip,
      isPublic: isPublicAddress(parsed.lookup),
    });
  }
  return matches;
}

/** The network address of a CIDR block (host bits cleared) and its prefix; null when the prefix is out of range. */
function networkOf(cidr: string): Pick<IpMatch, "ip" | "isPublic" | "prefix"> | null {
  const range = parseCidr(cidr);
  const parsed = range ? parseIp(ipaddr.fromByteArray(Array.from(range.first)).toString()) : null;
  if (!range || !parsed) return null;
  return { ip: parsed.ip, isPublic: isPublicAddress(parsed.lookup), prefix: range.prefixLength };
}
