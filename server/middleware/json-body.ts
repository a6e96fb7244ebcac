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

/**
 * A refused body is still read, and dropped, up to this much more or this long: a client that is
 * still sending it (most do not read an answer before their body is out) then reads the 413
 * instead of a connection reset under its feet. Past either bound the connection is cut.
 */
const DISCARD_BYTES = 8 * 1024 * 1024;
const DISCARD_MS = 2_000;

async function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  const until = performance.now() + DISCARD_MS;
  let dropped = 0;
  try {
    while (dropped <= DISCARD_BYTES && performance.now() < until) {
      const { done, value } = await reader.read();
      if (done) return;
      dropped += value.length;
    }
  } catch {
    return; // the client went away
  }
  await reader.cancel().catch(() => {});
}

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
      await discardRest(reader);
      throw new ApiError(413, MESSAGES.bodyTooLarge, null, CLOSE);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size).toString("utf8");
}

/**
 * Whether `value` nests arrays and objects deeper than `maxDepth`; a loop, not recursion. Only
 * arrays and objects are stacked, each with its depth (1 for `value`): a bulk's 5000 strings are
 * looked at, not queued.
 */
function nestsDeeper(value: unknown, maxDepth: number): boolean {
  const stack: Array<[object, number]> = [];
  if (isNode(value)) stack.push([value, 1]);
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (depth > maxDepth) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) if (isNode(child)) stack.push([child, depth + 1]);
  }
  return false;
}

const isNode = (value: unknown): value is object => typeof value === "object" && value !== null;

export function jsonBody(options: JsonBodyOptions = {}): MiddlewareHandler {
  const maxBytes = options.maxBytes ?? LIMITS.bodyBytes;
  const maxDepth = options.maxDepth ?? 16;
  return async (c, next) => {
    if (c.req.method !== "POST") return next();
    if (!JSON_TYPE.test(c.req.header("content-type") ?? "")) throw new ApiError(415, MESSAGES.unsupportedMediaType, null, CLOSE);
    const declared = Number(c.req.header("content-length") ?? NaN);
    if (declared > maxBytes) {
      if (declared <= maxBytes + DISCARD_BYTES && c.req.raw.body) await discardRest(c.req.raw.body.getReader());
      throw new ApiError(413, MESSAGES.bodyTooLarge, null, CLOSE);
    }
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
