/**
 * Work done once before the port opens, so the first seconds of traffic are served as fast as
 * the rest: the engine's lookups (GeoEngine.warmUp), then requests over loopback to a server of
 * its own on a port of its own, built from the same parts as the real one: Node's HTTP parser and
 * response, the fast GET path up to its key check, Hono and the middlewares, the envelope. The
 * requests need no key (a refused key and /healthz), store nothing, and are neither logged nor
 * counted (the app sees them without the Node request, as it sees `app.request`). Bounded in
 * time, so a slow machine does not start much later. Time zone formatters are left to first use:
 * ~0.2 ms each, within any request's budget.
 */
import { connect, type AddressInfo, type Socket } from "node:net";
import type { Hono } from "hono";
import type { GeoEngine } from "./geo/types.js";
import type { AppEnv } from "./app-types.js";
import type { ServerLimits } from "./config.js";
import { createHttpServer, type HttpServerOptions } from "./http-server/index.js";

export interface WarmUpOptions {
  app: Hono<AppEnv>;
  engine: GeoEngine;
  /** the fast GET path as the server uses it, made without access log or metrics */
  fastPath: HttpServerOptions["fastPath"];
  limits: ServerLimits;
  /** the engine's lookups get this long, then the requests as long again (ms) */
  budgetMs?: number;
}

/** connections the requests are spread over: the server sees them interleaved, as under load */
const CONNECTIONS = 8;

/** Resolves with the number of requests answered. */
export async function warmUp(options: WarmUpOptions): Promise<number> {
  const { app, engine, budgetMs = 100 } = options;
  engine.warmUp(budgetMs);
  const { server } = createHttpServer({
    fetch: (request) => app.fetch(request),
    fastPath: options.fastPath,
    limits: options.limits,
    hostname: "127.0.0.1",
  });
  try {
    // exclusive: under --workers a listen(0) would otherwise share one port among the workers
    await new Promise<void>((resolve, reject) => server.once("error", reject).listen({ port: 0, host: "127.0.0.1", exclusive: true }, resolve));
  } catch {
    return 0; // no loopback port to be had: the server starts all the same, less warm
  }
  const { port } = server.address() as AddressInfo;
  const until = performance.now() + budgetMs;
  try {
    const answered = await Promise.all(Array.from({ length: CONNECTIONS }, (_, n) => requestLoop(port, n, until)));
    return answered.reduce((sum, count) => sum + count, 0);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/**
 * One keep-alive connection asking, one request at a time, until `until`; how many were answered.
 * A failed connection ends its loop only: the server starts all the same, less warm.
 */
async function requestLoop(port: number, n: number, until: number): Promise<number> {
  const socket = connect(port, "127.0.0.1");
  socket.setNoDelay(true);
  let answered = 0;
  try {
    await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
    for (let i = n; performance.now() < until; i += CONNECTIONS) {
      const target = i % 2 === 0 ? `/convert?ip=8.${i % 256}.${(i >> 8) % 256}.8` : "/healthz";
      await roundTrip(socket, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ipa_sk_warm-up\r\n\r\n`);
      answered++;
    }
  } catch {
    // answered so far is what this connection did
  } finally {
    socket.destroy();
  }
  return answered;
}

/** writes a request and waits for its whole answer (the server sends a Content-Length) */
function roundTrip(socket: Socket, request: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let received = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const headEnd = received.indexOf("\r\n\r\n");
      if (headEnd === -1) return;
      const length = /\r\ncontent-length: *(\d+)/i.exec(received.subarray(0, headEnd).toString("latin1"));
      if (!length) return done(new Error("warm-up: an answer without Content-Length"));
      if (received.length >= headEnd + 4 + Number(length[1])) done();
    };
    const onEnd = () => done(new Error("warm-up: the connection closed"));
    const done = (error?: Error) => {
      socket.off("data", onData).off("error", done).off("end", onEnd);
      if (error) reject(error);
      else resolve();
    };
    socket.on("data", onData).once("error", done).once("end", onEnd);
    socket.write(request);
  });
}
