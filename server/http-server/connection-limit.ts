/**
 * At most `maxPerAddress` open connections per peer address. One more is answered 429 in the
 * envelope and closed at once (any request on it is dropped unanswered), so one client cannot
 * hold all of the process's file descriptors. Peers in `exempt` (default loopback: a proxy on the same
 * machine, health checks) are not counted.
 */
import type { Server } from "node:http";
import type { Socket } from "node:net";
import { parseCidr, parseIp, type CidrRange } from "../../lib/ip/index.js";
import { MESSAGES } from "../../lib/schemas/messages.js";
import { rawHttpAnswer } from "./raw-answer.js";

export interface ConnectionLimitOptions {
  /** 0 = no limit */
  maxPerAddress: number;
  /** CIDR ranges */
  exempt?: string[];
}

/** Whether the address bytes lie in the CIDR range: network bits equal, host bits anything. */
function inRange(bytes: number[], range: CidrRange): boolean {
  if (bytes.length !== range.first.length) return false;
  return bytes.every((byte, i) => (byte & ~(range.first[i]! ^ range.last[i]!) & 0xff) === range.first[i]);
}

export interface ConnectionLimit {
  /** open connections per counted address */
  open: Map<string, number>;
  /** true for a socket that was refused: Node's parser still reads it, its requests must be dropped */
  refused(socket: Socket): boolean;
}

/** Counts connections per address on `server`. */
export function limitConnectionsPerAddress(server: Server, options: ConnectionLimitOptions): ConnectionLimit {
  const open = new Map<string, number>();
  const refusedSockets = new WeakSet<Socket>();
  const limit: ConnectionLimit = { open, refused: (socket) => refusedSockets.has(socket) };
  if (options.maxPerAddress <= 0) return limit;
  const exempt = (options.exempt ?? []).map((text) => parseCidr(text)!).filter(Boolean);
  const isExempt = (address: string): boolean => {
    // the IPv4 inside an IPv4-mapped peer (dual-stack listener), so 127.0.0.0/8 covers both spellings
    const parsed = parseIp(address);
    const bytes = parsed?.lookup.toByteArray();
    return bytes !== undefined && exempt.some((range) => inRange(bytes, range));
  };
  // prepended: runs before Node's HTTP connection listener, so a refused socket never reaches the parser
  server.prependListener("connection", (socket: Socket) => {
    const address = socket.remoteAddress;
    if (!address || isExempt(address)) return;
    const count = (open.get(address) ?? 0) + 1;
    if (count > options.maxPerAddress) {
      refusedSockets.add(socket);
      socket.on("error", () => {});
      socket.end(rawHttpAnswer(429, MESSAGES.tooManyConnections, { "retry-after": "1" }));
      setTimeout(() => socket.destroy(), 1_000).unref();
      return;
    }
    open.set(address, count);
    socket.once("close", () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
  return limit;
}
