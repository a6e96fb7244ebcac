/**
 * Prometheus metrics (prom-client), off unless IPATLAS_METRICS=1 or `serve --metrics`: requests by
 * route and status with latency histograms, conversions stored, quota, rate-limit and busy
 * refusals, group-commit sizes, what waits in the bounded queues (bulks, rows to write, lists),
 * open connections, each geolocation database's build age, and Node's own (event-loop lag, heap,
 * GC). Under --workers N the primary aggregates every worker's registry
 * (group-metrics.ts).
 */
import type { Server } from "node:http";
import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { AggregatorRegistry, collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { GeoDatabaseInfo } from "../geo/types.js";
import type { AdmissionQueue } from "../middleware/bulk-admission.js";
import type { StorageWaiting } from "../storage/types.js";
import { observeGroupCommits } from "../storage/group-commit.js";
import type { AppEnv } from "../app-types.js";

export interface AnswerObserved {
  method: string;
  /** the route pattern, never the raw path */
  route: string;
  status: number;
  startedAt: number;
  conversionsStored?: number;
  refusal?: Refusal;
}

type Refusal = "quota" | "rate_limit" | "busy";

export interface Metrics {
  registry: Registry;
  /** counts and times every request; mount first */
  middleware(): MiddlewareHandler<AppEnv>;
  /** counts and times one answer made outside Hono (the fast GET path) */
  observe(answer: AnswerObserved): void;
  /** counts the listener's open connections */
  trackServer(server: Server): void;
  /** reports what the bulk POST /convert admission runs and holds waiting */
  trackBulkAdmission(queue: AdmissionQueue): void;
  close(): void;
}

/**
 * In a cluster worker, answer the primary's scrapes from the first moment: a worker still loading
 * its data would otherwise leave every scrape waiting for it until prom-client's 5 s timeout.
 * prom-client installs the worker's IPC listener when an AggregatorRegistry is made.
 */
export function answerClusterScrapes(): void {
  new AggregatorRegistry();
}

export interface MetricsOptions {
  /** the engine's databases, read at each scrape */
  databases: () => GeoDatabaseInfo[];
  /** what waits in the storage's queues, read at each scrape */
  storageWaiting: () => StorageWaiting;
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const GROUP_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];
const ROW_BUCKETS = [1, 10, 100, 1000, 5000, 10_000, 25_000, 50_000];

/** before prom-client's default metrics (`ipatlas_process_*`, `ipatlas_nodejs_*`) */
export const DEFAULT_METRICS_PREFIX = "ipatlas_";

export function createMetrics(options: MetricsOptions): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: DEFAULT_METRICS_PREFIX });
  // a cluster worker answers the primary's AggregatorRegistry with this registry
  // (its IPC listener is installed at the worker's start: answerClusterScrapes)
  AggregatorRegistry.setRegistries([registry]);

  const requests = new Counter({ name: "ipatlas_http_requests_total", help: "HTTP requests by route pattern, method and status", labelNames: ["method", "route", "status"], registers: [registry] });
  const duration = new Histogram({ name: "ipatlas_http_request_duration_seconds", help: "time to answer, by route pattern and method", labelNames: ["method", "route"], buckets: LATENCY_BUCKETS, registers: [registry] });
  const stored = new Counter({ name: "ipatlas_conversions_stored_total", help: "conversions stored (and counted against plans)", registers: [registry] });
  const refusals = new Counter({
    name: "ipatlas_refusals_total",
    help: "refused requests: reason quota (429, plan limit), rate_limit (429, public key per minute) or busy (503, bulk admission's queue full or waited too long)",
    labelNames: ["reason"],
    registers: [registry],
  });
  const groupRequests = new Histogram({ name: "ipatlas_group_commit_requests", help: "requests written together in one group-commit transaction", buckets: GROUP_BUCKETS, registers: [registry] });
  const groupRows = new Histogram({ name: "ipatlas_group_commit_rows", help: "conversion rows written in one group-commit transaction", buckets: ROW_BUCKETS, registers: [registry] });
  const groupSeconds = new Histogram({
    name: "ipatlas_group_commit_duration_seconds",
    help: "time to write one group-commit transaction (new location and network rows, the quota, the rows); the next group waits for it",
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const connections = new Gauge({ name: "ipatlas_http_open_connections", help: "open HTTP connections", registers: [registry] });
  new Gauge({
    name: "ipatlas_geo_database_build_age_seconds",
    help: "age of each geolocation database's data, from its build date",
    labelNames: ["name", "kind"],
    aggregator: "max",
    registers: [registry],
    collect() {
      this.reset();
      for (const db of options.databases()) {
        const built = db.buildDate ? Date.parse(db.buildDate) : NaN;
        if (Number.isFinite(built)) this.set({ name: db.name, kind: db.kind }, Math.max(0, (Date.now() - built) / 1000));
      }
    },
  });
  for (const reason of ["quota", "rate_limit", "busy"] satisfies Refusal[]) refusals.inc({ reason }, 0);

  // Gauges read at each scrape; summed over --workers (prom-client's default aggregation).
  let admission: AdmissionQueue | undefined;
  const waitingGauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read());
      },
    });
  waitingGauge("ipatlas_bulk_admission_waiting", "bulk POST /convert requests waiting for their turn, body not read yet", () => admission?.waiting ?? 0);
  waitingGauge("ipatlas_bulk_admission_running_bytes", "declared body bytes of the bulk POST /convert requests running (the admission's capacity bounds it)", () => admission?.runningWeight ?? 0);
  waitingGauge("ipatlas_storage_write_rows_waiting", "conversion rows waiting for their group commit", () => options.storageWaiting().writeRows);
  waitingGauge("ipatlas_storage_lists_waiting", "conversion lists waiting for their turn to be read", () => options.storageWaiting().lists);

  const stopObserving = observeGroupCommits((group) => {
    groupRequests.observe(group.items);
    groupRows.observe(group.weight);
    groupSeconds.observe(group.seconds);
  });

  const observe = (answer: AnswerObserved) => {
    const labels = { method: answer.method, route: answer.route };
    requests.inc({ ...labels, status: String(answer.status) });
    duration.observe(labels, (performance.now() - answer.startedAt) / 1000);
    if (answer.conversionsStored) stored.inc(answer.conversionsStored);
    if (answer.refusal) refusals.inc({ reason: answer.refusal });
  };

  return {
    registry,
    middleware() {
      return async (c, next) => {
        // only what came over the network: the start-up warm-up (warm-up.ts) gives the app its requests without the Node request, as app.request() does
        if (!(c.env as { incoming?: unknown } | undefined)?.incoming) return next();
        const started = performance.now();
        await next();
        const status = c.res.status;
        // the matched route pattern (bounded label values), never the raw path
        const route = status === 404 && c.req.path !== "/" ? "unmatched" : routePath(c, -1) || c.req.path;
        const refusal = status === 429 ? (c.get("quota") ? "quota" : "rate_limit") : status === 503 && c.get("admissionRefused") ? "busy" : undefined;
        observe({ method: c.req.method, route, status, startedAt: started, conversionsStored: c.get("conversionsStored"), refusal });
      };
    },
    observe,
    trackServer(server) {
      server.on("connection", (socket) => {
        connections.inc();
        socket.once("close", () => connections.dec());
      });
    },
    trackBulkAdmission(queue) {
      admission = queue;
    },
    close() {
      stopObserving();
      registry.clear();
    },
  };
}
