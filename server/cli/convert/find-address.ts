/**
 * The address of one input line: the whole line when it is one address, else the first address
 * found in it (a log line: `1.2.3.4 - - [23/Nov/2026:10:00:00 +0000] "GET / HTTP/1.1" 200`).
 * Brackets and ports around an address are taken off (`[2001:db8::1]:443`, `1.2.3.4:8080`).
 */
import { parseIp } from "../../../lib/ip/index.js";

/** Runs of characters an address is written with; everything else separates candidates. */
const CANDIDATE = /[0-9A-Fa-f:.]+/g;
const IPV4_WITH_PORT = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/;

export function findAddress(line: string): string | null {
  const whole = line.trim();
  if (parseIp(whole)) return whole;
  for (const [token] of whole.matchAll(CANDIDATE)) {
    // at least one separator, or it is a number or a word, never an address
    if (!token.includes(".") && !token.includes(":")) continue;
    const trimmed = token.replace(/^[.:]+(?!:)|[.]+$/g, "").replace(/(?<!:):$/, "");
    const candidate = IPV4_WITH_PORT.exec(trimmed)?.[1] ?? trimmed;
    if (parseIp(candidate)) return candidate;
  }
  return null;
}
