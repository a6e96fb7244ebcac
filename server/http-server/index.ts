/**
 * The Node HTTP server around the app, with the limits of docs/security.md: header, request and
 * keep-alive timeouts, a header size limit, connections per client address. Requests the app
 * never sees still get the envelope: the ones Node's parser refuses (`clientError`), the ones
 * @hono/node-server cannot turn into a Request (backslash in the path, a bad Host, a target that
 * is neither a path nor an http(s) URL), HTTP/1.1 without Host, `OPTIONS *`, an Expect other than
 * 100-continue, CONNECT.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { getRequestListener, RequestError } from "@hono/node-server";
import { MESSAGES } from "../../lib/schemas/messages.js";
import type { ServerLimits } from "../config.js";
import { onClientError } from "../client-error.js";
import { limitConnectionsPerAddress, type ConnectionLimit } from "./connection-limit.js";
import { envelopeResponse, rawHttpAnswer, writeEnvelope } from "./raw-answer.js";

export interface HttpServerOptions {
  fetch: (request: Request) => Response | Promise<Response>;
  limits: ServerLimits;
  /** answers some requests before the app (convert/fast-get.ts), or calls `next` for the app */
  fastPath?: (req: IncomingMessage, res: ServerResponse, next: () => void) => void;
  /** the Host an HTTP/1.0 request without one is taken to name (the listening host) */
  hostname: string;
}

export interface HttpServer {
  server: Server;
  connections: ConnectionLimit;
}

// how often Node checks the header and request timeouts; its default (30 s) would let a slow
// client keep a connection up to 30 s past its timeout
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;
const BAD_TARGET = "Malformed request target or Host header";
const CLOSE = { connection: "close" };
const ALLOW = "GET, HEAD, POST, DELETE, OPTIONS";

export function createHttpServer(options: HttpServerOptions): HttpServer {
  const { limits, fastPath } = options;
  const handle = getRequestListener(options.fetch, {
    hostname: options.hostname,
    errorHandler: (error) =>
      error instanceof RequestError ? envelopeResponse(400, BAD_TARGET, CLOSE) : envelopeResponse(500, MESSAGES.internal, CLOSE),
  });
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      maxHeaderSize: limits.maxHeaderBytes,
      connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
      // Node would answer a bare 400 itself; the listener below answers with the envelope
      requireHostHeader: false,
    },
    (req, res) => {
      if (connections.refused(req.socket)) return void res.destroy();
      if (req.url === "*") {
        // the server-wide OPTIONS (RFC 9110 §9.3.7): what methods the server knows
        if (req.method === "OPTIONS") return writeEnvelope(res, 200, MESSAGES.success, { allow: ALLOW });
        return writeEnvelope(res, 400, BAD_TARGET, CLOSE);
      }
      if (req.httpVersion === "1.1" && req.headers.host === undefined) return writeEnvelope(res, 400, BAD_TARGET, CLOSE);
      if (fastPath) fastPath(req, res, () => void handle(req, res));
      else void handle(req, res);
    },
  );
  // anything but `Expect: 100-continue` (which Node answers itself)
  server.on("checkExpectation", (_req, res) => writeEnvelope(res, 417, MESSAGES.expectationFailed, CLOSE));
  server.on("clientError", onClientError);
  // CONNECT (tunnels) is not served; without a listener Node would drop the socket unanswered
  server.on("connect", (_req, socket: Socket) => {
    socket.on("error", () => {});
    socket.end(rawHttpAnswer(405, MESSAGES.methodNotAllowed, { allow: ALLOW }));
  });
  const connections = limitConnectionsPerAddress(server, {
    maxPerAddress: limits.maxConnectionsPerAddress,
    exempt: limits.connectionLimitExempt,
  });
  return { server, connections };
}
