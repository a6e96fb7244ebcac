/**
 * The popup's lookup box: what the user typed (or selected) as one address to look up. A CIDR
 * block stands for its network address; private and reserved addresses are answered locally.
 */
import { isPublicAddress, parseIp } from "../../lib/ip/index.js";
import { findIps } from "../shared/find-ips.js";

export type LookupQuery = { ok: true; ip: string; isPublic: boolean; prefix?: number } | { ok: false };

export function parseLookupQuery(text: string): LookupQuery {
  const trimmed = text.trim().replace(/^\[|\]$/g, "");
  const exact = parseIp(trimmed);
  if (exact) return { ok: true, ip: exact.ip, isPublic: isPublicAddress(exact.lookup) };
  // Pasted text with an address in it (a log line, a CIDR block, `1.2.3.4:443`).
  const found = findIps(trimmed, 1)[0];
  return found ? { ok: true, ip: found.ip, isPublic: found.isPublic, ...(found.prefix !== undefined ? { prefix: found.prefix } : {}) } : { ok: false };
}
