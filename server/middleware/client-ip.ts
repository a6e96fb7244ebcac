/**
 * The caller's address: the socket's, or with `trustProxy = N` the address N proxies back in
 * X-Forwarded-For (the N-th entry from the right). Whatever the spelling (`[2001:DB8::1]:443`,
 * `2001:0db8::1`, `::ffff:10.7.7.7`, `10.7.7.7:1234`), it is read with the same strict parser as
 * any address (lib/ip) and kept in canonical form: IPv4-mapped becomes IPv4, IPv6 is RFC 5952.
 * A forwarded value that is not an address (or an X-Forwarded-For past `maxForwardedForBytes`)
 * is refused with 400 rather than guessed at (docs/security.md).
 *
 * `clientBucket` is what per-caller limits count: the IPv4 address, or the IPv6 /64 (one
 * customer's network, inside which an address can be picked at will).
 */
import type { MiddlewareHandler } from "hono";
import { getConnInfo } from "@hono/node-server/conninfo";
import { parseIp } from "../../lib/ip/index.js";
import { MESSAGES } from "../../lib/schemas/messages.js";
import { ApiError } from "./envelope.js";

declare module "hono" {
  interface ContextVariableMap {
    /** the caller's address (socket, or X-Forwarded-For with IPATLAS_TRUST_PROXY), canonical */
    clientIp: string;
    /** what per-caller limits count: the IPv4 address or the IPv6 /64 */
    clientBucket: string;
  }
}

export interface ClientIpOptions {
  trustProxy?: number;
  /** longer X-Forwarded-For values are refused; default 1024 */
  maxForwardedForBytes?: number;
}

function socketAddress(c: Parameters<MiddlewareHandler>[0]): string {
  try {
    return getConnInfo(c).remote.address ?? "";
  } catch {
    return ""; // not served over a socket (app.request in unit tests)
  }
}

/** One address as a proxy may write it, with brackets and a port; canonical text, or null. */
export function canonicalAddress(text: string): string | null {
  let hop = text.trim();
  // brackets only around IPv6, a port only after brackets or an IPv4 address
  const withPort = /^(?:\[([^\]]*:[^\]]*)\]|([\d.]+))(?::(\d{1,5}))?$/.exec(hop);
  if (withPort) {
    if (withPort[3] !== undefined && Number(withPort[3]) > 65535) return null;
    hop = withPort[1] ?? withPort[2]!;
  } else if (hop.startsWith("[")) return null;
  const parsed = parseIp(hop);
  return parsed ? parsed.lookupIp : null;
}

/**
 * The caller's canonical address; null when the trusted X-Forwarded-For entry is not an address.
 * An empty socket address (no socket) stays "".
 */
export function clientAddress(socket: string, forwardedFor: string | undefined, trustProxy: number, maxForwardedForBytes = 1024): string | null {
  if (trustProxy > 0 && forwardedFor) {
    if (forwardedFor.length > maxForwardedForBytes) return null;
    const hops = forwardedFor.split(",").map((hop) => hop.trim()).filter(Boolean);
    if (hops.length > 0) return canonicalAddress(hops[Math.max(0, hops.length - trustProxy)]!);
  }
  return socket === "" ? "" : (canonicalAddress(socket) ?? socket);
}

/** The key per-caller limits count under: the IPv4 address, or the /64 of an IPv6 one. */
export function addressBucket(address: string): string {
  const parsed = parseIp(address);
  if (!parsed || parsed.lookupVersion === 4) return address;
  const groups = parsed.lookup.toNormalizedString().split(":").slice(0, 4);
  return `${groups.map((group) => group.replace(/^0+(?=.)/, "")).join(":")}::/64`;
}

export function clientIp(options: ClientIpOptions = {}): MiddlewareHandler {
  const trustProxy = options.trustProxy ?? 0;
  const maxForwardedForBytes = options.maxForwardedForBytes ?? 1024;
  return async (c, next) => {
    const address = clientAddress(socketAddress(c), c.req.header("x-forwarded-for"), trustProxy, maxForwardedForBytes);
    if (address === null) throw new ApiError(400, MESSAGES.invalidForwardedFor);
    c.set("clientIp", address);
    c.set("clientBucket", addressBucket(address));
    await next();
  };
}
