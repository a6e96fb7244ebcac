/**
 * Reads a POST body as JSON: 415 without a JSON content type, 413 past the size limit (by
 * Content-Length at once, or while streaming), 400 when it does not parse. The parsed value is
 * left in `c.var.jsonBody` for the route's zod schema.
 */
import type { MiddlewareHandler } from "hono";
import { LIMITS } from "../../lib/schemas/api.js";
import { MESSAGES } from "../../lib/schemas/messages.js";
import type { AppEnv } from "../app-types.js";
import { ApiError } from "./envelope.js";

export interface JsonBodyOptions {
  maxBytes?: number;
}

// The body is left unread (or half read) on these refusals; closing the connection keeps a
// client from sending its next request on a socket still full of the old body.
const CLOSE = { Connection: "close" };

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

async function readLimited(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<string> {
  if (!body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new ApiError(413, MESSAGES.bodyTooLarge, null, CLOSE);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size).toString("utf8");
}

export function jsonBody(options: JsonBodyOptions = {}): MiddlewareHandler<AppEnv> {
  const maxBytes = options.maxBytes ?? LIMITS.bodyBytes;
  return async (c, next) => {
    if (c.req.method !== "POST") return next();
    if (!JSON_TYPE.test(c.req.header("content-type") ?? "")) throw new ApiError(415, MESSAGES.unsupportedMediaType, null, CLOSE);
    const declared = Number(c.req.header("content-length") ?? NaN);
    if (declared > maxBytes) throw new ApiError(413, MESSAGES.bodyTooLarge, null, CLOSE);
    const text = await readLimited(c.req.raw.body, maxBytes);
    try {
      c.set("jsonBody", JSON.parse(text));
    } catch {
      throw new ApiError(400, MESSAGES.invalidJson);
    }
    await next();
  };
}
