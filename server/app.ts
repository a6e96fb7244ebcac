/**
 * The HTTP application: the API routes of the contract behind their middlewares, plus the routes
 * other parts of the server own (flags, widget, admin API, dashboard). Every answer is the
 * envelope, Hono's own 404/500 included.
 */
import { Hono } from "hono";
import type { AppDeps, AppEnv } from "./app-types.js";
import { requestId } from "./middleware/request-id.js";
import { accessLog } from "./middleware/access-log.js";
import { allowedMethods } from "./middleware/allowed-methods.js";
import { notFound, onError } from "./middleware/errors.js";
import { apiCors } from "./middleware/cors.js";
import { clientIp } from "./middleware/client-ip.js";
import { keyAuth } from "./middleware/key-auth.js";
import { secretKeyOnly } from "./middleware/public-scope.js";
import { publicRateLimit } from "./middleware/public-rate-limit.js";
import { quotaHeaders } from "./middleware/quota-headers.js";
import { convertRoutes } from "./routes/convert.js";
import { conversionRoutes } from "./routes/conversions.js";
import { healthRoutes } from "./routes/health.js";
import { benchRoutes } from "./routes/bench.js";
import { flagRoutes } from "./routes/flags.js";
import { widgetRoutes } from "./routes/widget.js";
import { adminApiRoutes, dashboardRoutes } from "./admin/routes.js";
import { openApiRoutes } from "./openapi/routes.js";
import { metricsRoutes } from "./metrics/routes.js";

const API_METHODS = {
  "/convert": ["GET", "POST", "OPTIONS"],
  "/conversions/get": ["GET", "POST", "OPTIONS"],
  "/conversions/list": ["GET", "OPTIONS"],
  "/healthz": ["GET"],
} as const;

export function createApp(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.notFound(notFound());
  app.onError(onError(deps.log));

  if (deps.metrics) app.use("*", deps.metrics.middleware());
  app.use("*", requestId());
  if (deps.config.accessLog) app.use("*", accessLog({ log: deps.log }));
  app.use("*", allowedMethods(deps.config.benchRoutes ? { ...API_METHODS, "/bench/lookup": ["GET", "OPTIONS"] } : API_METHODS));

  // The key-protected API: CORS first (a preflight needs no key), then the key and its origin.
  const keyed = [apiCors(), clientIp({ trustProxy: deps.config.trustProxy }), keyAuth({ keys: deps.keys })] as const;
  const limited = publicRateLimit({ perMinute: deps.config.publicRateLimit });
  app.use("/convert", ...keyed, limited, quotaHeaders());
  app.use("/conversions/get", ...keyed, secretKeyOnly());
  app.use("/conversions/list", ...keyed, secretKeyOnly());
  if (deps.config.benchRoutes) app.use("/bench/*", ...keyed, limited);

  app.route("/", healthRoutes(deps));
  app.route("/", convertRoutes(deps));
  app.route("/", conversionRoutes(deps));
  if (deps.config.benchRoutes) app.route("/", benchRoutes(deps));

  app.route("/", flagRoutes());
  app.route("/", openApiRoutes());
  if (deps.metrics && deps.config.metricsPort === null) {
    const { registry } = deps.metrics;
    app.route("/", metricsRoutes({ metrics: () => registry.metrics(), contentType: registry.contentType, token: deps.config.metricsToken }));
  }
  app.route("/", widgetRoutes(deps));
  app.route("/admin/api", adminApiRoutes(deps));
  app.route("/dashboard", dashboardRoutes(deps));
  return app;
}
