/** GET /healthz (docs/api.md#operations): no key, the geolocation databases in use, their build dates and freshness. */
import { Hono } from "hono";
import { MESSAGES } from "../../lib/schemas/messages.js";
import type { HealthResponse } from "../../lib/schemas/api.js";
import type { AppDeps, AppEnv } from "../app-types.js";
import { reply } from "../middleware/envelope.js";
import { API_ROUTES } from "./api-routes.js";
import { dataStatus } from "../geo/update/status.js";

export function healthRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get(API_ROUTES.health.path, (c) => {
    const { config } = deps;
    const data: HealthResponse = { status: "ok", ...dataStatus(deps.engine.databases(), config.update, config.dataDir) };
    return reply(c, 200, MESSAGES.success, data);
  });
  return app;
}
