/**
 * Gives every request an id and a start time (for `_req`), and stamps `x-request-id` and
 * `x-api-version` on whatever answer leaves, error answers included.
 */
import { randomUUID } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-types.js";

export const API_VERSION = "1.0.0";

export interface RequestIdOptions {
  generate?: () => string;
}

export function requestId(options: RequestIdOptions = {}): MiddlewareHandler<AppEnv> {
  const generate = options.generate ?? randomUUID;
  return async (c, next) => {
    c.set("startedAt", performance.now());
    const reqId = generate();
    c.set("reqId", reqId);
    await next();
    c.res.headers.set("x-request-id", reqId);
    c.res.headers.set("x-api-version", API_VERSION);
  };
}
