/**
 * Reads a POST body as JSON: 415 without a JSON content type, 413 past the size limit (by
 * Content-Length at once, or while streaming), 400 when it is cut off, does not parse or nests deeper than
 * any request needs (deep values would overflow the stack of whatever walks them later, such as
 * the error answer that echoes them). The parsed value is left in `c.var.jsonBody` for the
 * route's zod schema.
 */
import type { MiddlewareHandler } from "hono";
import { LIMITS } from "../../lib/schemas/api.js";
import { MESSAGES } from "../../lib/schemas/messages.js";
import { ApiError } from "./envelope.js";

declare module "hono" {
  interface ContextVariableMap {
    /** the parsed POST body, for the route's zod schema */
    jsonBody: unknown;
  }
}

export interface JsonBodyOptions {
  maxBytes?: number;
  /** arrays and objects inside each other; every API body needs 2 */
  maxDepth?: number;
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
    let next: ReadableStreamReadResult<Uint8Array>;
    try {
      next = await reader.read();
    } catch {
      // the connection closed or the parser gave up mid-body; the client will not see this answer
      throw new ApiError(400, MESSAGES.bodyIncomplete, null, CLOSE);
    }
    const { done, value } = next;
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

/** Whether `value` nests arrays and objects deeper than `maxDepth`; a loop, not recursion. */
function nestsDeeper(value: unknown, maxDepth: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== "object" || node === null) continue;
    if (depth + 1 > maxDepth) return true;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

export function jsonBody(options: JsonBodyOptions = {}): MiddlewareHandler {
  const maxBytes = options.maxBytes ?? LIMITS.bodyBytes;
  const maxDepth = options.maxDepth ?? 16;
  return async (c, next) => {
    if (c.req.method !== "POST") return next();
    if (!JSON_TYPE.test(c.req.header("content-type") ?? "")) throw new ApiError(415, MESSAGES.unsupportedMediaType, null, CLOSE);
    const declared = Number(c.req.header("content-length") ?? NaN);
    if (declared > maxBytes) throw new ApiError(413, MESSAGES.bodyTooLarge, null, CLOSE);
    // A byte order mark may lead JSON text (RFC 8259 §8.1); JSON.parse does not take one.
    const text = (await readLimited(c.req.raw.body, maxBytes)).replace(/^\uFEFF/, "");
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new ApiError(400, MESSAGES.invalidJson);
    }
    if (nestsDeeper(body, maxDepth)) throw new ApiError(400, MESSAGES.bodyTooDeep);
    c.set("jsonBody", body);
    await next();
  };
}
