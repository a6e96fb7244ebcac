/**
 * The envelope every API answer uses (docs/api.md#conventions): `{success, message, code, data,
 * _req}` with `code` = the HTTP status. Routes answer through `reply`; anything that refuses a
 * request throws an ApiError, which the error handler turns into the same envelope.
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Envelope } from "../../lib/schemas/envelope.js";

export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
    readonly data: Record<string, unknown> | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export function envelope<T>(c: Context, status: number, message: string, data: T): Envelope<T> {
  const startedAt = c.get("startedAt") ?? performance.now();
  return {
    success: status < 400,
    message,
    code: status,
    data,
    _req: { reqId: c.get("reqId") ?? "", resTime: Math.round((performance.now() - startedAt) * 1000) / 1000 },
  };
}

export function reply<T>(
  c: Context,
  status: ContentfulStatusCode,
  message: string,
  data: T,
  headers: Record<string, string> = {},
): Response {
  return c.json(envelope(c, status, message, data), status, headers);
}

export function replyError(c: Context, error: ApiError): Response {
  return reply(c, error.status, error.message, error.data, error.headers);
}

/**
 * `reply` for data that is already JSON text (the hot convert routes assemble it from cached
 * fragments): the same envelope, key order and headers, without serialising an object tree.
 */
export function replyJsonText(
  c: Context,
  status: ContentfulStatusCode,
  message: string,
  dataJson: string | readonly string[],
  headers: Record<string, string> = {},
): Response {
  const text = envelopeText(status, message, dataJson, c.get("reqId") ?? "", c.get("startedAt") ?? performance.now());
  return c.body(text, status, { "Content-Type": "application/json", ...headers });
}

/**
 * The envelope as JSON text around data that already is JSON text; the one writer of that text.
 * Data in pieces (a list page's rows) is joined once with the envelope: a large answer is then one
 * flat string, not a concatenation that is copied again to measure and write it.
 */
export function envelopeText(status: number, message: string, dataJson: string | readonly string[], reqId: string, startedAt: number): string {
  const resTime = Math.round((performance.now() - startedAt) * 1000) / 1000;
  const head = `{"success":${status < 400},"message":${JSON.stringify(message)},"code":${status},"data":`;
  const tail = `,"_req":{"reqId":${JSON.stringify(reqId)},"resTime":${resTime}}}`;
  return typeof dataJson === "string" ? head + dataJson + tail : [head, ...dataJson, tail].join("");
}

/** where the data goes in envelopeText, cut out again: a raw NUL, which JSON.stringify never leaves in message or reqId */
const DATA_GAP = "\u0000";

/**
 * `replyJsonText` for data already encoded as UTF-8 chunks of JSON text (a bulk answer): the same
 * bytes and Content-Length, written chunk by chunk as the socket drains, each chunk let go once
 * written.
 */
export function replyJsonChunks(
  c: Context,
  status: ContentfulStatusCode,
  message: string,
  dataChunks: Uint8Array[],
  headers: Record<string, string> = {},
): Response {
  const [head, tail] = envelopeText(status, message, DATA_GAP, c.get("reqId") ?? "", c.get("startedAt") ?? performance.now()).split(DATA_GAP);
  const parts: Array<Uint8Array | null> = [Buffer.from(head!), ...dataChunks, Buffer.from(tail!)];
  const length = parts.reduce((sum, part) => sum + part!.byteLength, 0);
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next === parts.length) return controller.close();
      controller.enqueue(parts[next]!);
      parts[next++] = null;
    },
  });
  return c.body(body, status, { "Content-Type": "application/json", "Content-Length": String(length), ...headers });
}
