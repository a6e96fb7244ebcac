/**
 * Under `serve --workers N` a scrape must see the whole cluster, not the one worker the kernel
 * hands the connection to: the primary listens on the metrics port alone and answers with
 * prom-client's AggregatorRegistry, which asks every worker for its registry over IPC.
 */
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { serve } from "@hono/node-server";
import { AggregatorRegistry } from "prom-client";
import type { Config } from "../config.js";
import { metricsRoutes } from "./routes.js";

export async function startClusterMetrics(config: Config): Promise<{ url: string; close(): Promise<void> }> {
  const aggregator = new AggregatorRegistry();
  const app = metricsRoutes({ metrics: () => aggregator.clusterMetrics(), contentType: aggregator.contentType, token: config.metricsToken });
  return listenMetrics(app.fetch, config);
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
