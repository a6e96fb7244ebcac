/**
 * Requests Node's HTTP parser refuses before Hono sees them (malformed request line or headers,
 * headers too large, a body cut off or with a bad chunk size, a request that took too long) would
 * get a bare `400 Bad Request`. This answers them with the envelope too, then closes the socket.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { rawHttpAnswer } from "./http-server/raw-answer.js";

const STATUS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, "Request headers too large"],
  ERR_HTTP_REQUEST_TIMEOUT: [408, "Request timed out"],
  HPE_INVALID_EOF_STATE: [400, "Request ended before its body was complete"],
  HPE_INVALID_CHUNK_SIZE: [400, "Malformed chunked request body"],
};

// a peer that never reads our answer must not keep its socket
const FLUSH_LIMIT_MS = 1_000;

export function clientErrorResponse(code: string | undefined): string {
  const [status, message] = STATUS[code ?? ""] ?? [400, "Malformed HTTP request"];
  return rawHttpAnswer(status, message);
}

function answerAndClose(socket: Socket, text: string): void {
  socket.end(text, () => socket.destroy());
  setTimeout(() => socket.destroy(), FLUSH_LIMIT_MS).unref();
}

/**
 * For `server.on("clientError", ...)`. Bytes that do not parse may follow a complete request
 * whose answer is still being made (its conversions already stored): that answer is sent first,
 * then the error, then the connection closes. A request that is itself incomplete can never be
 * answered by the app, which would wait for the rest of its body for good: it gets the error now,
 * and closing the socket ends the app's read of the body.
 */
export function onClientError(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) return void socket.destroy();
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse & { req?: IncomingMessage } | null })._httpMessage;
  if (!inFlight || inFlight.writableFinished) return answerAndClose(socket, clientErrorResponse(error.code));
  if (!inFlight.req?.complete) {
    if (inFlight.headersSent) return void socket.destroy();
    return answerAndClose(socket, clientErrorResponse(error.code));
  }
  inFlight.once("finish", () => answerAndClose(socket, clientErrorResponse(error.code)));
  inFlight.once("close", () => {
    if (!inFlight.writableFinished) socket.destroy();
  });
}
