/**
 * GET /metrics in Prometheus's text format, optionally behind `Authorization: Bearer TOKEN`
 * (IPATLAS_METRICS_TOKEN). Mounted on the API port, or alone on IPATLAS_METRICS_PORT.
 */
import { timingSafeEqual } from "node:crypto";
import { Hono } from "hono";

export interface MetricsRouteOptions {
  /** what to answer: one registry's metrics, or the cluster's aggregate */
  metrics: () => Promise<string>;
  contentType: string;
  token?: string | null;
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(header?.replace(/^Bearer\s+/i, "") ?? "");
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export function metricsRoutes(options: MetricsRouteOptions): Hono {
  const app = new Hono();
  // e.g. a worker that did not answer the aggregation in time: say so to the scraper
  app.onError((error, c) => c.text(`Cannot collect metrics: ${error.message}\n`, 500));
  app.get("/metrics", async (c) => {
    if (options.token && !tokenMatches(c.req.header("authorization"), options.token)) {
      return c.text("Unauthorized\n", 401, { "www-authenticate": 'Bearer realm="metrics"' });
    }
    return c.body(await options.metrics(), 200, { "content-type": options.contentType });
  });
  return app;
}
