/**
 * Reserved-range classification without a database lookup: private, loopback, link-local, CGNAT,
 * documentation, multicast, NAT64, 6to4, Teredo and the other special-purpose ranges come back
 * without a location. The range names are ipaddr.js's (IANA special-purpose registries).
 */
import ipaddr from "ipaddr.js";

/** ipaddr.js range name: `unicast` for ordinary public addresses, otherwise the special range. */
export function addressRange(address: ipaddr.IPv4 | ipaddr.IPv6): string {
  return address.range();
}

/**
 * True when the address is ordinary public unicast, the only kind a geolocation database can
 * locate. IPv6 outside 2000::/3 is not assigned for global unicast, so it counts as reserved too.
 */
export function isPublicAddress(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  if (address.kind() === "ipv4") return !inSpecialIpv4((address as ipaddr.IPv4).octets);
  if (address.range() !== "unicast") return false;
  return (address as ipaddr.IPv6).parts[0]! >>> 13 === 1;
}

/**
 * ipaddr.js's IPv4 special-purpose ranges as [first, last] uint32 pairs. `range()` walks them as
 * objects on every call; this is the same data as plain numbers, checked on the hot path of
 * every lookup.
 */
type SpecialRange = [ipaddr.IPv4, number];
const specialRanges = (ipaddr.IPv4.prototype as unknown as { SpecialRanges: Record<string, SpecialRange | SpecialRange[]> }).SpecialRanges;
const SPECIAL_IPV4 = Uint32Array.from(
  Object.entries(specialRanges)
    .filter(([name]) => name !== "unicast")
    .flatMap(([, value]) => (Array.isArray(value[0]) ? (value as SpecialRange[]) : [value as SpecialRange]))
    .flatMap(([network, bits]) => {
      const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
      const first = (toUint32(network.octets) & mask) >>> 0;
      return [first, (first | (~mask >>> 0)) >>> 0];
    }),
);

function inSpecialIpv4(octets: number[]): boolean {
  const ip = toUint32(octets);
  for (let i = 0; i < SPECIAL_IPV4.length; i += 2) if (ip >= SPECIAL_IPV4[i]! && ip <= SPECIAL_IPV4[i + 1]!) return true;
  return false;
}

function toUint32(octets: number[]): number {
  return ((octets[0]! << 24) | (octets[1]! << 16) | (octets[2]! << 8) | octets[3]!) >>> 0;
}
