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
import { keyAuth } from "./keys/key-auth.js";
import { secretKeyOnly } from "./middleware/public-scope.js";
import { publicRateLimit } from "./middleware/public-rate-limit.js";
import { QUOTA_HEADERS, quotaHeaders } from "./convert/quota-headers.js";
import { convertRoutes } from "./convert/routes.js";
import { conversionRoutes } from "./routes/conversions.js";
import { healthRoutes } from "./routes/health.js";
import { benchRoutes } from "./routes/bench.js";
import { flagRoutes } from "./routes/flags.js";
import { widgetRoutes } from "./routes/widget.js";
import { adminApiRoutes, dashboardRoutes } from "./admin/routes.js";
import { API_ROUTES, methodsByPath } from "./routes/api-routes.js";
import { DATA_SOURCES_HEADER } from "../lib/schemas/data-sources.js";
import { openApiRoutes } from "./openapi/routes.js";
import { metricsRoutes } from "./metrics/routes.js";
import { landingRoutes } from "./routes/landing.js";

export function createApp(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.notFound(notFound());
  app.onError(onError(deps.log));

  if (deps.metrics) app.use("*", deps.metrics.middleware());
  app.use("*", requestId());
  if (deps.config.accessLog) app.use("*", accessLog({ log: deps.log }));
  const { benchLookup, ...served } = API_ROUTES;
  app.use("*", allowedMethods(methodsByPath(Object.values(deps.config.benchRoutes ? API_ROUTES : served))));

  // The key-protected API: CORS first (a preflight needs no key), then the key and its origin.
  const exposeHeaders = [...QUOTA_HEADERS, "Retry-After", "x-request-id", "x-conversion-id", DATA_SOURCES_HEADER];
  const forwarded = { trustProxy: deps.config.trustProxy, maxForwardedForBytes: deps.config.limits.maxForwardedForBytes };
  const keyed = [apiCors({ exposeHeaders }), clientIp(forwarded), keyAuth({ keys: deps.keys })] as const;
  const limited = publicRateLimit({ perMinute: deps.config.publicRateLimit });
  app.use(API_ROUTES.convert.path, ...keyed, limited, quotaHeaders());
  app.use(API_ROUTES.getConversions.path, ...keyed, secretKeyOnly());
  app.use(API_ROUTES.listConversions.path, ...keyed, secretKeyOnly());
  if (deps.config.benchRoutes) app.use(benchLookup.path, ...keyed, limited);

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
  app.route("/", landingRoutes(deps));
  return app;
}
