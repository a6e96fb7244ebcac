/**
 * `ipatlas serve`: opens storage and the geolocation engine, mounts the app, listens, and prints
 * exactly `IP Atlas listening on http://HOST:PORT` once requests are accepted, then the dashboard's
 * address (and what is missing, if the widget or dashboard could not be built). On an empty store
 * it first creates project `default` and prints its secret key once, with a curl line to try.
 * SIGTERM/SIGINT: stop accepting, finish in-flight requests, flush and close storage, exit 0
 * within 10 s.
 */
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { publicBaseUrl, type Config } from "./config.js";
import { createApp } from "./app.js";
import type { AppDeps } from "./app-types.js";
import { createLogger, type Logger } from "./logger.js";
import { createHttpServer } from "./http-server/index.js";
import { createKeyService } from "./keys/auth-cache.js";
import { createAdminServices, type AdminServices } from "./services/index.js";
import { openStorage } from "./open-storage.js";
import { createGeoEngine } from "./geo/engine/engine.js";
import { metricsRoutes } from "./metrics/routes.js";
import { answerScrapes, groupMember, groupWriteTurn, listening, readyToListen, stopAsked } from "./server-group.js";
import { recordServerUrl } from "./public-url.js";
import { ensureWebBuilds } from "./web-builds.js";
import { ADMIN_TOKEN_FILE } from "./admin/admin-token.js";
import { join } from "node:path";
import { startUpkeep } from "./geo/update/upkeep.js";
import { warmUpServer } from "./warm-up.js";
import { createConverter } from "./convert/converter.js";
import { createFastGet, type FastGet } from "./convert/fast-get.js";

// in-flight requests get this long before their connections are cut; storage then flushes and closes
const SHUTDOWN_LIMIT_MS = 7_000;

export interface RunningServer {
  url: string;
  port: number;
  deps: AppDeps;
  /** the plain GET /convert answered before Hono (how many: tests check the path is taken) */
  fastGet: FastGet;
  /** graceful stop; resolves once everything is closed */
  stop(): Promise<void>;
}

async function firstRun(services: AdminServices): Promise<string | null> {
  if ((await services.listProjects()).length > 0) return null;
  const created = await services.createProject({ name: "default", plan: "free" });
  return created.secretKey;
}

function firstRunText(secretKey: string, baseUrl: string): string {
  return [
    "",
    "First run: created project \"default\" (plan free) with this secret key. It is shown only once:",
    "",
    `  ${secretKey}`,
    "",
    "Try it:",
    "",
    `  curl -H 'x-api-key: ${secretKey}' '${baseUrl}/convert?ip=8.8.8.8'`,
    "",
  ].join("\n");
}

/** What a person needs next, after the listening line: where the dashboard is and how to sign in. */
function nextStepsText(baseUrl: string, config: Config, env: NodeJS.ProcessEnv, missing: string[]): string {
  const token = env.IPATLAS_ADMIN_TOKEN?.trim() ? "IPATLAS_ADMIN_TOKEN" : join(config.dataDir, ADMIN_TOKEN_FILE);
  return [
    `  Dashboard:  ${baseUrl}/dashboard  (sign in with the admin token from ${token})`,
    `  API:        ${baseUrl}/docs/api  ·  health: ${baseUrl}/healthz`,
    ...missing.map((line) => `  Missing:    ${line}`),
  ].join("\n");
}

export async function startServer(config: Config, env: NodeJS.ProcessEnv, print: (text: string) => void, log: Logger): Promise<RunningServer> {
  const missingBuilds = await ensureWebBuilds(print);
  const storage = await openStorage(config, groupWriteTurn());
  for (const warning of await storage.upkeepWarnings()) log.warn(`storage: ${warning}`);
  const keys = createKeyService(storage, { pollMs: config.keyCachePollMs, onError: (error, where) => log.warn(where, { error }) });
  const services = createAdminServices(storage, () => keys.invalidate());
  const newSecretKey = await firstRun(services);
  // flag URLs need the public base, which with --port 0 is known only after listening
  let baseUrl = config.publicUrl ?? publicBaseUrl(config, config.port);
  const engine = await createGeoEngine({
    cityDb: config.cityDb,
    asnDb: config.asnDb,
    dataDir: config.dataDir,
    publicBaseUrl: () => baseUrl,
    logger: log,
  });
  // prom-client, and the ~50 modules of @opentelemetry/api its default metrics require, only when asked for
  const metrics = config.metrics ? (await import("./metrics/metrics.js")).createMetrics({ databases: () => engine.databases(), storageWaiting: () => storage.waiting() }) : undefined;
  const converter = createConverter({ storage, engine });
  if (metrics) answerScrapes(() => metrics.registry.getMetricsAsJSON());
  const deps: AppDeps = { storage, engine, config, keys, services, log, metrics, converter };
  const app = createApp(deps);
  const fastGet = createFastGet(deps);
  await warmUpServer(app, deps);
  // stale warnings, and the data update schedule (docs/data.md "Updates")
  const upkeep = startUpkeep({ engine, dataDir: config.dataDir, cityDb: config.cityDb, asnDb: config.asnDb, settings: config.update, log });

  let server: Server;
  try {
    const turn = await readyToListen();
    server = await new Promise<Server>((resolve, reject) => {
      const created = createHttpServer({ fetch: app.fetch, fastPath: fastGet.handle, limits: config.limits, hostname: config.host }).server;
      created.once("error", reject);
      created.listen({ port: turn.port ?? config.port, host: config.host, reusePort: turn.reusePort }, () => resolve(created));
    });
  } catch (error) {
    // e.g. EADDRINUSE: release what was opened so the process can exit with the error
    upkeep.stop();
    await keys.close();
    await storage.close();
    await engine.close();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  listening(port);
  metrics?.trackServer(server);
  // its own port: here, unless a group's primary serves the aggregate (commands/serve.ts)
  const member = groupMember();
  const metricsServer =
    metrics && config.metricsPort !== null && !member
      ? await (await import("./metrics/group-metrics.js")).listenMetrics(metricsRoutes({ metrics: () => metrics.registry.metrics(), contentType: metrics.registry.contentType, token: config.metricsToken }).fetch, config)
      : null;
  if (metricsServer) print(`IP Atlas metrics on ${metricsServer.url}/metrics`);
  baseUrl = publicBaseUrl(config, port);
  const listenHost = config.host.includes(":") ? `[${config.host}]` : config.host;
  // the key first: whoever waits for the "listening" line has the whole first-run text by then
  if (newSecretKey) print(firstRunText(newSecretKey, baseUrl));
  // once per server: in a group the first server speaks for all
  if (!member || member.id === 1) {
    print(`IP Atlas listening on http://${listenHost}:${port}`);
    print(nextStepsText(baseUrl, config, env, missingBuilds));
  }
  // the CLI run elsewhere on this data dir then prints snippets that point here
  recordServerUrl(config.dataDir, baseUrl);

  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_LIMIT_MS);
      await closed;
      clearTimeout(force);
      upkeep.stop();
      await metricsServer?.close();
      metrics?.close();
      await keys.close();
      await storage.close();
      await engine.close();
    })());

  return { url: `http://${listenHost}:${port}`, port, deps, fastGet, stop };
}

/** The `serve` command: runs until SIGTERM/SIGINT, then shuts down gracefully and returns 0. */
export async function runServer(config: Config, env: NodeJS.ProcessEnv): Promise<number> {
  const log = createLogger(config.logLevel, { format: config.logFormat });
  // Listened for before the start: without a listener Node leaves a signal to its default,
  // which ends the process at once, and whoever reads the "listening" line may send one at once.
  // A signal during the start stops the server as soon as it is up.
  const signalled = new Promise<void>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      log.info(`${signal}: shutting down`);
      // a second signal or a hung close must not keep the process past the 10 s promise
      setTimeout(() => process.exit(1), 10_000).unref();
      resolve();
    };
    process.once("SIGTERM", onSignal);
    process.once("SIGINT", onSignal);
    // a server thread hears of a signal from its primary
    void stopAsked().then(onSignal);
  });
  const running = await startServer(config, env, (text) => process.stdout.write(text + "\n"), log);
  await signalled;
  await running.stop();
  return 0;
}
