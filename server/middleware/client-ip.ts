/**
 * The caller's address: the socket's, or with `trustProxy = N` the address N proxies back in
 * X-Forwarded-For (the N-th entry from the right). An IPv4 address the socket reports in its
 * IPv4-mapped IPv6 form (dual-stack listeners) is given back as plain IPv4.
 */
import type { MiddlewareHandler } from "hono";
import { getConnInfo } from "@hono/node-server/conninfo";

declare module "hono" {
  interface ContextVariableMap {
    /** the caller's address (socket, or X-Forwarded-For with IPATLAS_TRUST_PROXY) */
    clientIp: string;
  }
}

export interface ClientIpOptions {
  trustProxy?: number;
}

function socketAddress(c: Parameters<MiddlewareHandler>[0]): string {
  try {
    return getConnInfo(c).remote.address ?? "";
  } catch {
    return ""; // not served over a socket (app.request in unit tests)
  }
}

export function clientAddress(socket: string, forwardedFor: string | undefined, trustProxy: number): string {
  let address = socket;
  if (trustProxy > 0 && forwardedFor) {
    const hops = forwardedFor.split(",").map((hop) => hop.trim()).filter(Boolean);
    if (hops.length > 0) address = hops[Math.max(0, hops.length - trustProxy)]!;
  }
  return address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, "$1");
}

export function clientIp(options: ClientIpOptions = {}): MiddlewareHandler {
  const trustProxy = options.trustProxy ?? 0;
  return async (c, next) => {
    c.set("clientIp", clientAddress(socketAddress(c), c.req.header("x-forwarded-for"), trustProxy));
    await next();
  };
}
