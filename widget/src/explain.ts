/**
 * What the widget says when it has no location to show: one short title and one sentence that
 * tells the visitor (or the site owner) why, and for set-up problems what to do. Pure, so every
 * case is unit-tested in Node.
 */
import type { ErrorEnvelope } from "../../lib/schemas/envelope.js";
import { MESSAGES } from "../../lib/schemas/messages.js";

export interface Explanation {
  /** what kind of problem, for styling and `data-reason` */
  reason: "private" | "unknown" | "origin" | "key" | "setup" | "quota" | "rate" | "offline" | "unreachable" | "input" | "error";
  title: string;
  detail: string;
}

// IPv4 ranges never routed on the public internet, by their first octets (RFC 1918, 6598, 3927, loopback, 0/8)
const PRIVATE_V4 = /^(10\.|127\.|0\.|169\.254\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|100\.(6[4-9]|[7-9]\d|1[01]\d|12[0-7])\.)/;
// IPv6: loopback, unspecified, unique local fc00::/7, link-local fe80::/10
const PRIVATE_V6 = /^(::1?$|f[cd][0-9a-f]{0,2}:|fe[89ab][0-9a-f]?:)/i;

/** True for addresses used inside local networks, which no geolocation data can place. */
export function isPrivateAddress(ip: string): boolean {
  return PRIVATE_V4.test(ip) || PRIVATE_V6.test(ip);
}

/** A located answer with no country: a private address, or one the data does not know. */
export function explainUnlocated(ip: string | null): Explanation {
  if (ip && isPrivateAddress(ip)) {
    return { reason: "private", title: "Private network address", detail: `${ip} is used inside a local network, so it has no location.` };
  }
  return { reason: "unknown", title: "Location unknown", detail: `The location data has no entry for ${ip || "this address"}.` };
}

/** The host[:port] to register for a refused page, as `website add --origin` takes it. */
function originPattern(origin: string): string {
  try {
    return new URL(origin).host;
  } catch {
    return origin;
  }
}

export interface ExplainContext {
  /** navigator.onLine */
  online: boolean;
  /** the page's own origin, for refusals that came without a readable answer */
  pageOrigin: string;
  /** the server asked, for "cannot be reached" */
  server: string;
}

/** A page that embedded the widget wrongly (no key, a secret key): nothing was sent. */
export function explainSetup(problem: string): Explanation {
  return { reason: "setup", title: "Widget not set up", detail: problem };
}

export function explainError(error: ErrorEnvelope, { online, pageOrigin, server }: ExplainContext): Explanation {
  const { code, message } = error;
  if (code === 401 && message === MESSAGES.originNotAllowed) {
    const origin = typeof error.data?.origin === "string" ? error.data.origin : pageOrigin;
    return {
      reason: "origin",
      title: "Not enabled for this site",
      detail: `Register ${origin} for this key: ipatlas website add --project ID --origin ${originPattern(origin)}`,
    };
  }
  if (code === 401) return { reason: "key", title: "Widget key not valid", detail: `${message}: the key was revoked or rolled; take the current snippet from the dashboard.` };
  if (code === 429 && message === MESSAGES.quotaExceeded) {
    return { reason: "quota", title: "Monthly limit reached", detail: "This site has used every lookup of its plan this month." };
  }
  if (code === 429 || code === 402) return { reason: "rate", title: "Too many lookups", detail: "Try again in a minute." };
  if (code === 400) return { reason: "input", title: "Not an IP address", detail: message };
  if (code === 0 && !online) return { reason: "offline", title: "You are offline", detail: "The location shows once you are back online." };
  if (code === 0) {
    return {
      reason: "unreachable",
      title: "Location service unreachable",
      detail: `${server} did not answer (or refused this page without saying why).`,
    };
  }
  return { reason: "error", title: "Location unavailable", detail: `${message} (HTTP ${code})` };
}
