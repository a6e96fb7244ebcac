/**
 * Under `serve --workers N` or `--threads N` a scrape must see the whole group, not the one server
 * the kernel hands the connection to: the primary listens on the metrics port alone and answers
 * with prom-client's AggregatorRegistry, which sums every server's registry: asked for over the
 * cluster's IPC by prom-client itself, or over the threads' ports by the group (`scrape`).
 * Threads share their process: each reads the same process-wide figures (CPU, resident memory,
 * open files), which are taken once, not summed.
 */
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { serve } from "@hono/node-server";
import { AggregatorRegistry } from "prom-client";
import type { Config } from "../config.js";
import { metricsRoutes } from "./routes.js";
import { DEFAULT_METRICS_PREFIX } from "./metrics.js";

export async function startGroupMetrics(config: Config, scrape?: () => Promise<unknown[]>): Promise<{ url: string; close(): Promise<void> }> {
  const aggregator = new AggregatorRegistry();
  const metrics = scrape
    ? async () => AggregatorRegistry.aggregate(((await scrape()) as ThreadMetrics[]).map(oncePerProcess) as Parameters<typeof AggregatorRegistry.aggregate>[0]).metrics()
    : () => aggregator.clusterMetrics();
  const app = metricsRoutes({ metrics, contentType: aggregator.contentType, token: config.metricsToken });
  return listenMetrics(app.fetch, config);
}

/** one thread's registry as JSON (`getMetricsAsJSON`) */
type ThreadMetrics = Array<{ name: string; aggregator?: string }>;

/** prom-client's process metrics, which read the whole process */
const PROCESS_METRIC = `${DEFAULT_METRICS_PREFIX}process_`;

/** a thread's metrics, its process-wide ones marked to be taken once (their largest: read last) */
function oncePerProcess(metrics: ThreadMetrics): ThreadMetrics {
  return metrics.map((metric) => (metric.name.startsWith(PROCESS_METRIC) && metric.aggregator !== "omit" ? { ...metric, aggregator: "max" } : metric));
}

/** Listens on the metrics port (same host as the API). */
export async function listenMetrics(fetch: (request: Request) => Response | Promise<Response>, config: Config): Promise<{ url: string; close(): Promise<void> }> {
  const server = await new Promise<Server>((resolve, reject) => {
    const created = serve({ fetch, port: config.metricsPort ?? 0, hostname: config.host }, () => resolve(created as Server));
    created.once("error", reject);
  });
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  return {
    url: `http://${host}:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
