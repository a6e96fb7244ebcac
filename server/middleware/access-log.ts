/**
 * One structured log line per request, at info level: request id, method, route pattern, path,
 * status, duration, project and key id (never the key), client address, request body bytes
 * (content-length) and bytes sent.
 * JSON lines on stderr by default (pretty on a terminal): what log shippers read.
 */
import type { ServerResponse } from "node:http";
import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { getConnInfo } from "@hono/node-server/conninfo";
import type { AppEnv } from "../app-types.js";
import type { Logger } from "../logger.js";

/** The fields of one access log line, whoever answered (this middleware or the fast GET path). */
export type AccessLogLine = {
  reqId: string;
  method: string;
  /** the route pattern; null for a 404 */
  route: string | null;
  path: string;
  status: number;
  durationMs: number;
  projectId: string | null;
  keyId: string | null;
  clientIp: string | null;
  bytesIn: number | null;
  bytesOut: number | null;
};

// a value that is missing, or a number JSON has no form for, is written as null: the line stays JSON
const jsonString = (value: string | null) => (value == null ? "null" : JSON.stringify(value));
const jsonNumber = (value: number | null) => (value == null || !Number.isFinite(value) ? "null" : String(value));

/** The line as pino would write `log.info("request", line)`, its fields serialised here (Logger.infoLine). */
export function writeAccessLine(log: Logger, line: AccessLogLine): void {
  log.infoLine(
    "request",
    `"reqId":${jsonString(line.reqId)},"method":${jsonString(line.method)},"route":${jsonString(line.route)},"path":${jsonString(line.path)},"status":${jsonNumber(line.status)},` +
      `"durationMs":${jsonNumber(line.durationMs)},"projectId":${jsonString(line.projectId)},"keyId":${jsonString(line.keyId)},"clientIp":${jsonString(line.clientIp)},` +
      `"bytesIn":${jsonNumber(line.bytesIn)},"bytesOut":${jsonNumber(line.bytesOut)}`,
  );
}

/** a Content-Length value as a number */
export const headerBytes = (header: string | null | undefined): number | null => (header && /^\d+$/.test(header) ? Number(header) : null);

export interface AccessLogOptions {
  log: Logger;
}

function socketAddress(c: Parameters<MiddlewareHandler<AppEnv>>[0]): string | null {
  try {
    return getConnInfo(c).remote.address ?? null;
  } catch {
    return null; // not behind @hono/node-server (app.request in tests)
  }
}

export function accessLog(options: AccessLogOptions): MiddlewareHandler<AppEnv> {
  const { log } = options;
  return async (c, next) => {
    // only what came over the network: the start-up warm-up (warm-up.ts) gives the app its requests without the Node request, as app.request() does
    if (!(c.env as { incoming?: unknown } | undefined)?.incoming) return next();
    const started = performance.now();
    const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
    const sentBefore = outgoing?.socket?.bytesWritten ?? 0;
    await next();
    const auth = c.get("auth");
    const line: AccessLogLine = {
      reqId: c.get("reqId"),
      method: c.req.method,
      route: c.res.status === 404 ? null : routePath(c, -1),
      path: c.req.path,
      status: c.res.status,
      durationMs: 0,
      projectId: auth?.project.id ?? null,
      keyId: auth?.key.id ?? null,
      // the trusted client address where key auth worked it out, else the socket's peer
      clientIp: c.get("clientIp") ?? socketAddress(c),
      bytesIn: headerBytes(c.req.header("content-length")),
      bytesOut: headerBytes(c.res.headers.get("content-length")),
    };
    const write = () => {
      line.durationMs = Math.round((performance.now() - started) * 1000) / 1000;
      writeAccessLine(log, line);
    };
    // Under Node, what went out on the socket (status line and headers included, like nginx's
    // $bytes_sent) is known once @hono/node-server has written the answer
    const socket = outgoing?.socket;
    if (!outgoing || !socket) return write();
    outgoing.once("finish", () => {
      line.bytesOut = socket.bytesWritten - sentBefore;
      write();
    });
  };
}
