/**
 * Gives every request an id and a start time (for `_req`), and stamps `x-request-id` and
 * `x-api-version` on whatever answer leaves, error answers included.
 */
import { randomUUID } from "node:crypto";
import type { MiddlewareHandler } from "hono";

declare module "hono" {
  interface ContextVariableMap {
    reqId: string;
    /** performance.now() when the request arrived, for `_req.resTime` */
    startedAt: number;
  }
}

export const API_VERSION = "1.0.0";

export interface RequestIdOptions {
  generate?: () => string;
}

export function requestId(options: RequestIdOptions = {}): MiddlewareHandler {
  const generate = options.generate ?? randomUUID;
  return async (c, next) => {
    // Hono's router can match a `use("*")` middleware twice for a request path that is itself
    // `/*`; a second id would make the header and `_req.reqId` differ
    if (c.get("reqId")) return next();
    c.set("startedAt", performance.now());
    const reqId = generate();
    c.set("reqId", reqId);
    // Set before the answer is made, so they are part of it from the start: a HEAD answer is
    // copied from the GET one, and that copy misses headers added to it afterwards.
    c.header("x-request-id", reqId);
    c.header("x-api-version", API_VERSION);
    await next();
    // answers made without the context (static files) get them here
    c.res.headers.set("x-request-id", reqId);
    c.res.headers.set("x-api-version", API_VERSION);
  };
}
