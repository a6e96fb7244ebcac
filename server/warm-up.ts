/**
 * Work done once before the port opens, so the first seconds of traffic are served as fast as
 * the rest: the engine's lookups (GeoEngine.warmUp), then requests over loopback to a server of
 * its own on a port of its own, built from the same parts as the real one: Node's HTTP parser and
 * response, the fast GET path, Hono and the middlewares, the envelope. A refused key and
 * /healthz need no key; on SQLite a third of the requests are stored GET /convert answers, made
 * on a throwaway store (`openScratchStore`; `warmUpServer` decides) so that the operator's store gets no row and no
 * quota is spent. Neither kind is logged or counted (the app sees its requests without the Node
 * request, as it sees `app.request`; the fast path is made without access log and metrics).
 * Bounded in time, so a slow machine does not start much later. Time zone formatters are left to
 * first use: ~0.2 ms each, within any request's budget.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { connect, type AddressInfo, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Hono } from "hono";
import type { GeoEngine } from "./geo/types.js";
import type { AppDeps, AppEnv } from "./app-types.js";
import type { ServerLimits } from "./config.js";
import { createHttpServer, type HttpServerOptions } from "./http-server/index.js";
import { createStorage, type Storage } from "./storage/index.js";
import { createKeyService, type KeyService } from "./keys/auth-cache.js";
import { createAdminServices } from "./services/index.js";
import { createConverter } from "./convert/converter.js";
import { createFastGet } from "./convert/fast-get.js";

export interface WarmUpOptions {
  app: Hono<AppEnv>;
  engine: GeoEngine;
  /** the fast GET path as the server uses it, made without access log or metrics */
  fastPath: HttpServerOptions["fastPath"];
  limits: ServerLimits;
  /** the engine's lookups get this long, then the requests as long again (ms) */
  budgetMs?: number;
  /** a secret key the fast path accepts: GET /convert with it is converted and stored in full */
  storedKey?: string;
}

export interface WarmUpResult {
  /** requests answered */
  answered: number;
  /** of which GET /convert answered 200 with `storedKey` */
  stored: number;
}

/** the start of the scratch store's directory name, in the system's temporary directory */
export const SCRATCH_PREFIX = "ipatlas-scratch-";

export interface ScratchStore {
  /** the fast GET path over the scratch store, without access log or metrics */
  fastPath: HttpServerOptions["fastPath"];
  /** a secret key of its one project (plan scale: no quota to run out) */
  key: string;
  /** its directory, in the system's temporary directory, until it is closed */
  dir: string;
  /** closes the store and deletes its file */
  close(): Promise<void>;
}

/**
 * The fast GET path over `deps` as the warm-up uses it: without access log and metrics, so its
 * answers are neither logged nor counted.
 */
export function quietFastPath(deps: AppDeps): NonNullable<HttpServerOptions["fastPath"]> {
  return createFastGet({ ...deps, metrics: undefined, config: { ...deps.config, accessLog: false } }).handle;
}

/**
 * A throwaway SQLite store in a temporary directory, with the server's own engine and settings,
 * so that the warm-up's requests can take the stored path (key, conversion, group commit, the
 * rows' encoding and insert) without writing a row or spending a quota in the operator's store.
 */
export async function openScratchStore(deps: AppDeps): Promise<ScratchStore> {
  const dir = mkdtempSync(join(tmpdir(), SCRATCH_PREFIX));
  const opened: { storage?: Storage; keys?: KeyService } = {};
  const close = async () => {
    await opened.keys?.close();
    await opened.storage?.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const storage = (opened.storage = await createStorage({ dataDir: dir, sqliteWriterThread: false }));
    const keys = (opened.keys = createKeyService(storage, { pollMs: 60_000 }));
    const services = createAdminServices(storage, () => keys.invalidate());
    const { secretKey } = await services.createProject({ name: "warm-up", plan: "scale" });
    const converter = createConverter({ storage, engine: deps.engine });
    return { fastPath: quietFastPath({ ...deps, storage, keys, services, converter }), key: secretKey, dir, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * The warm-up `serve` runs before listening: on SQLite with a scratch store for the stored path;
 * on PostgreSQL, or when no scratch store can be made, with the keyless requests only (a
 * throwaway PostgreSQL schema is not ours to make).
 */
export async function warmUpServer(app: Hono<AppEnv>, deps: AppDeps): Promise<WarmUpResult> {
  const scratch = deps.config.databaseUrl
    ? null
    : await openScratchStore(deps).catch((error: unknown) => (deps.log.debug("warm-up: no scratch store; the stored path starts cold", { error }), null));
  try {
    const fastPath = scratch?.fastPath ?? quietFastPath(deps);
    return await warmUp({ app, engine: deps.engine, fastPath, limits: deps.config.limits, storedKey: scratch?.key });
  } finally {
    await scratch?.close();
  }
}

/** connections the requests are spread over: the server sees them interleaved, as under load */
const CONNECTIONS = 8;

export async function warmUp(options: WarmUpOptions): Promise<WarmUpResult> {
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
    return { answered: 0, stored: 0 }; // no loopback port to be had: the server starts all the same, less warm
  }
  const { port } = server.address() as AddressInfo;
  const until = performance.now() + budgetMs;
  try {
    const loops = await Promise.all(Array.from({ length: CONNECTIONS }, (_, n) => requestLoop(port, n, until, options.storedKey)));
    return loops.reduce((sum, loop) => ({ answered: sum.answered + loop.answered, stored: sum.stored + loop.stored }));
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/**
 * One keep-alive connection asking, one request at a time, until `until`. A failed connection
 * ends its loop only: the server starts all the same, less warm.
 */
async function requestLoop(port: number, n: number, until: number, storedKey: string | undefined): Promise<WarmUpResult> {
  const socket = connect(port, "127.0.0.1");
  socket.setNoDelay(true);
  let answered = 0;
  let stored = 0;
  try {
    await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
    for (let i = n; performance.now() < until; i += CONNECTIONS) {
      // a refused key, /healthz, and (with storedKey) a stored conversion, at addresses across the space
      const kind = i % 3;
      const target = kind === 1 ? "/healthz" : `/convert?ip=${1 + (i % 223)}.${(i * 7) % 256}.${(i >> 3) % 256}.8`;
      const toStore = kind === 2 && storedKey !== undefined;
      const status = await roundTrip(socket, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${toStore ? storedKey : "ipa_sk_warm-up"}\r\n\r\n`);
      answered++;
      if (toStore && status === 200) stored++;
    }
  } catch {
    // answered so far is what this connection did
  } finally {
    socket.destroy();
  }
  return { answered, stored };
}

/**
 * Writes a request on a keep-alive socket and waits for its whole answer (the server sends a
 * Content-Length); its status. Also bench/first-seconds.ts's client.
 */
export function roundTrip(socket: Socket, request: string): Promise<number> {
  return new Promise((resolve, reject) => {
    let received = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const headEnd = received.indexOf("\r\n\r\n");
      if (headEnd === -1) return;
      const length = /\r\ncontent-length: *(\d+)/i.exec(received.subarray(0, headEnd).toString("latin1"));
      if (!length) return done(new Error("warm-up: an answer without Content-Length"));
      if (received.length >= headEnd + 4 + Number(length[1])) done(undefined, Number(received.subarray(9, 12).toString("latin1")));
    };
    const onEnd = () => done(new Error("warm-up: the connection closed"));
    const done = (error?: Error, status = 0) => {
      socket.off("data", onData).off("error", done).off("end", onEnd);
      if (error) reject(error);
      else resolve(status);
    };
    socket.on("data", onData).once("error", done).once("end", onEnd);
    socket.write(request);
  });
}
