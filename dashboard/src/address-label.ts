/**
 * Why a stored address has no location: the special-purpose range it belongs to (ipaddr.js's
 * IANA registries, as the server's lib/ip/classify uses), in words, or null for a public address.
 */
import ipaddr from "ipaddr.js";

const RANGE_LABELS: Record<string, string> = {
  private: "private network",
  uniqueLocal: "private network",
  loopback: "loopback",
  linkLocal: "link-local",
  carrierGradeNat: "carrier-grade NAT",
  unspecified: "unspecified",
  multicast: "multicast",
  broadcast: "broadcast",
  reserved: "reserved",
  benchmarking: "benchmarking",
  amt: "reserved",
  as112: "reserved",
  deprecated: "reserved",
  orchid2: "reserved",
  droneRemoteIdProtocolEntityTags: "reserved",
  ipv4Mapped: "IPv4-mapped",
  rfc6145: "translated",
  rfc6052: "NAT64",
  "6to4": "6to4",
  teredo: "Teredo",
  discard: "discard",
};

export function addressLabel(ip: string | null | undefined): string | null {
  if (!ip || !ipaddr.isValid(ip)) return null;
  const address = ipaddr.parse(ip);
  const range = address.range();
  if (range === "unicast") {
    // IPv6 outside 2000::/3 is not assigned for global unicast
    return address.kind() === "ipv6" && (address as ipaddr.IPv6).parts[0]! >>> 13 !== 1 ? "reserved" : null;
  }
  return range === "reserved" && ip.startsWith("2001:db8") ? "documentation" : (RANGE_LABELS[range] ?? "reserved");
}
