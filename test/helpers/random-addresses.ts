/**
 * Reproducible random public IPv4 addresses for the lookup benchmark and the coverage report:
 * uniform over the address space, reserved ranges skipped (lib/ip decides what is reserved).
 */
import ipaddr from "ipaddr.js";
import { isPublicAddress } from "../../lib/ip/index.js";

/** mulberry32: small, fast, seedable; statistical quality is ample for sampling addresses. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

export function randomPublicIpv4(count: number, seed = 20261122): string[] {
  const next = mulberry32(seed);
  const addresses: string[] = [];
  while (addresses.length < count) {
    const n = next();
    const text = `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
    if (isPublicAddress(ipaddr.IPv4.parse(text))) addresses.push(text);
  }
  return addresses;
}
