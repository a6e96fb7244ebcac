/**
 * The envelope for answers made before or outside the Hono app: a request Node's parser refuses,
 * one @hono/node-server cannot turn into a Request, an `Expect` it does not meet, a connection
 * over its address's limit. Same shape and headers as the app's answers (docs/api.md).
 */
import { randomUUID } from "node:crypto";
import { STATUS_CODES, type ServerResponse } from "node:http";
import { API_VERSION } from "../middleware/request-id.js";

interface RawEnvelope {
  reqId: string;
  body: string;
  headers: Record<string, string>;
}

function rawEnvelope(status: number, message: string, headers: Record<string, string>): RawEnvelope {
  const reqId = randomUUID();
  const body = JSON.stringify({ success: status < 400, message, code: status, data: null, _req: { reqId, resTime: 0 } });
  return {
    reqId,
    body,
    headers: { "content-type": "application/json", "x-request-id": reqId, "x-api-version": API_VERSION, ...headers },
  };
}

/** The whole HTTP/1.1 answer as text, for writing straight to a socket; it closes the connection. */
export function rawHttpAnswer(status: number, message: string, headers: Record<string, string> = {}): string {
  const answer = rawEnvelope(status, message, { ...headers, connection: "close" });
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Error"}`,
    ...Object.entries(answer.headers).map(([name, value]) => `${name}: ${value}`),
    `content-length: ${Buffer.byteLength(answer.body)}`,
    "",
    answer.body,
  ].join("\r\n");
}

/** The answer as a fetch Response, for @hono/node-server's error handler. */
export function envelopeResponse(status: number, message: string, headers: Record<string, string> = {}): Response {
  const answer = rawEnvelope(status, message, headers);
  return new Response(answer.body, { status, headers: answer.headers });
}

/** The answer through a Node ServerResponse (requests Node hands over without running the app). */
export function writeEnvelope(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  const answer = rawEnvelope(status, message, headers);
  res.writeHead(status, { ...answer.headers, "content-length": Buffer.byteLength(answer.body) });
  res.end(answer.body);
}
