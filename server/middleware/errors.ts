/**
 * The answers Hono would otherwise give as bare text: unknown route (404) and anything thrown
 * (500, or the ApiError's own status). The body is always the envelope; a 500 never shows its
 * cause, which goes to the log with the request id.
 */
import type { ErrorHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { MESSAGES } from "../../lib/schemas/messages.js";
import { ApiError, reply, replyError } from "./envelope.js";
import type { Logger } from "../logger.js";

export function notFound(): NotFoundHandler {
  return (c) => reply(c, 404, MESSAGES.notFound, null);
}

export function onError(log: Logger): ErrorHandler {
  return (error, c) => {
    if (error instanceof ApiError) return replyError(c, error);
    if (error instanceof HTTPException && error.status < 500) {
      return reply(c, error.status as ContentfulStatusCode, error.message || MESSAGES.internal, null);
    }
    log.error("request failed", { reqId: c.get("reqId"), method: c.req.method, path: c.req.path, error });
    return reply(c, 500, MESSAGES.internal, null);
  };
}
