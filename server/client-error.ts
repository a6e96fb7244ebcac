/**
 * Requests Node's HTTP parser refuses before Hono sees them (malformed request line or headers,
 * headers too large, header timeout) would get a bare `400 Bad Request`. This answers them with
 * the envelope too, then closes the socket.
 */
import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { API_VERSION } from "./middleware/request-id.js";

const STATUS: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, "Request Header Fields Too Large", "Request headers too large"],
  ERR_HTTP_REQUEST_TIMEOUT: [408, "Request Timeout", "Request timed out"],
};

export function clientErrorResponse(code: string | undefined): string {
  const [status, reason, message] = STATUS[code ?? ""] ?? [400, "Bad Request", "Malformed HTTP request"];
  const reqId = randomUUID();
  const body = JSON.stringify({ success: false, message, code: status, data: null, _req: { reqId, resTime: 0 } });
  return [
    `HTTP/1.1 ${status} ${reason}`,
    "Content-Type: application/json",
    `Content-Length: ${Buffer.byteLength(body)}`,
    `x-request-id: ${reqId}`,
    `x-api-version: ${API_VERSION}`,
    "Connection: close",
    "",
    body,
  ].join("\r\n");
}

/**
 * For `server.on("clientError", ...)`. Bytes that do not parse may follow a complete request
 * whose answer is still being made (its conversions already stored): that answer is sent first,
 * then the error, then the connection closes.
 */
export function onClientError(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) return void socket.destroy();
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (!inFlight || inFlight.writableFinished) return void socket.end(clientErrorResponse(error.code));
  inFlight.once("finish", () => socket.end(clientErrorResponse(error.code)));
  inFlight.once("close", () => {
    if (!inFlight.writableFinished) socket.destroy();
  });
}
