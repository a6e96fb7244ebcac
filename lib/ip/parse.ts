/**
 * Strict address parsing (docs/api.md#conversion-records): surrounding whitespace is trimmed;
 * leading-zero IPv4 octets, zone ids, CIDR suffixes, ports and hostnames are invalid. Browser-safe
 * (ipaddr.js only), so the server, the dashboard and the extension read an address the same way.
 */
import ipaddr from "ipaddr.js";

export type IpVersion = 4 | 6;

export interface ParsedIp {
  /** canonical text: dotted quad, or RFC 5952 (mixed notation for IPv4-mapped, RFC 5952 §5) */
  ip: string;
  type: "ipv4" | "ipv6";
  address: ipaddr.IPv4 | ipaddr.IPv6;
  /** what geolocation looks up: the embedded IPv4 of an IPv4-mapped address, else the address itself */
  lookup: ipaddr.IPv4 | ipaddr.IPv6;
  /** canonical text of `lookup` */
  lookupIp: string;
  lookupVersion: IpVersion;
}

/** Parses one address strictly; null when it is not exactly one IPv4 or IPv6 address. */
export function parseIp(input: string): ParsedIp | null {
  const text = input.trim();
  const address = parseAddress(text);
  if (!address) return null;
  if (address.kind() === "ipv4") {
    // parseAddress accepts IPv4 only in its canonical form, so the text is the canonical text.
    return { ip: text, type: "ipv4", address, lookup: address, lookupIp: text, lookupVersion: 4 };
  }
  const v6 = address as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) {
    const v4 = v6.toIPv4Address();
    const lookupIp = v4.toString();
    return { ip: `::ffff:${lookupIp}`, type: "ipv6", address: v6, lookup: v4, lookupIp, lookupVersion: 4 };
  }
  const ip = v6.toRFC5952String();
  return { ip, type: "ipv6", address: v6, lookup: v6, lookupIp: ip, lookupVersion: 6 };
}

/** The address of already-trimmed text, or null. Shared with CIDR parsing so both are equally strict. */
export function parseAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (text.length === 0 || text.length > 45) return null;
  if (text.includes(":")) {
    // ipaddr.js accepts zone ids (`fe80::1%eth0`); the contract does not.
    if (text.includes("%") || !ipaddr.IPv6.isValid(text)) return null;
    // An embedded dotted quad (`::ffff:1.2.3.4`) follows the same no-leading-zero rule.
    const lastColon = text.lastIndexOf(":");
    const tail = text.slice(lastColon + 1);
    if (!tail.includes(".")) return ipaddr.IPv6.parse(text);
    const octets = dottedQuadOctets(tail);
    if (!octets) return null;
    // ipaddr.js reads `::1.2.3.4` (IPv4-compatible) as `::ffff:1.2.3.4` (IPv4-mapped), a
    // different address; the quad as two hex groups parses as written.
    const [a, b, c, d] = octets;
    return ipaddr.IPv6.parse(`${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`);
  }
  // only the canonical dotted quad: ipaddr.js would also read `127.1`, hex and octal (`010` = 8)
  const octets = dottedQuadOctets(text);
  return octets ? new ipaddr.IPv4(octets) : null;
}

/**
 * The octets of an IPv4 address written canonically (four decimals 0-255, no leading zeros), or
 * null for any other text. Read by hand because every conversion and every stored row needs one:
 * ipaddr's general parse, which knows the other spellings, costs several times as much.
 */
export function dottedQuadOctets(text: string): [number, number, number, number] | null {
  const octets: [number, number, number, number] = [0, 0, 0, 0];
  let part = 0;
  let value = 0;
  let digits = 0;
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : 46; // the end closes the last part like a dot
    if (code === 46) {
      if (digits === 0 || value > 255 || part > 3) return null;
      octets[part++] = value;
      value = 0;
      digits = 0;
    } else if (code >= 48 && code <= 57) {
      if (digits > 0 && value === 0) return null; // a leading zero
      value = value * 10 + code - 48;
      if (++digits > 3) return null;
    } else {
      return null;
    }
  }
  return part === 4 ? octets : null;
}
