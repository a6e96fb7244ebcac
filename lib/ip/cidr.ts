/**
 * CIDR text (`10.0.0.0/8`, `2001:db8::/32`) to the inclusive byte range the storage's `IpFilter`
 * searches. The address part is as strict as a single address; host bits are masked off.
 */
import { parseAddress, type IpVersion } from "./parse.js";

export interface CidrRange {
  version: IpVersion;
  prefixLength: number;
  first: Uint8Array;
  last: Uint8Array;
}

export function parseCidr(input: string): CidrRange | null {
  const text = input.trim();
  const slash = text.indexOf("/");
  if (slash < 0 || slash !== text.lastIndexOf("/")) return null;
  const bitsText = text.slice(slash + 1);
  if (!/^(0|[1-9][0-9]{0,2})$/.test(bitsText)) return null;
  const address = parseAddress(text.slice(0, slash));
  if (!address) return null;
  const version: IpVersion = address.kind() === "ipv4" ? 4 : 6;
  const prefixLength = Number(bitsText);
  if (prefixLength > (version === 4 ? 32 : 128)) return null;
  const bytes = address.toByteArray();
  const first = new Uint8Array(bytes.length);
  const last = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) {
    const mask = maskByte(prefixLength, i);
    first[i] = bytes[i]! & mask;
    last[i] = first[i]! | (~mask & 0xff);
  }
  return { version, prefixLength, first, last };
}

/** The network-bit mask of byte `index` for a prefix of `bits`. */
function maskByte(bits: number, index: number): number {
  const inThisByte = Math.min(8, Math.max(0, bits - index * 8));
  return (0xff << (8 - inThisByte)) & 0xff;
}
