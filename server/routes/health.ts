/** GET /healthz (docs/api.md#operations): no key, the geolocation databases in use and their build dates. */
import { Hono } from "hono";
import { MESSAGES } from "../../lib/schemas/messages.js";
import type { HealthResponse } from "../../lib/schemas/api.js";
import type { AppDeps, AppEnv } from "../app-types.js";
import { reply } from "../middleware/envelope.js";
import { API_ROUTES } from "./api-routes.js";

export function healthRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get(API_ROUTES.health.path, (c) => {
    const data: HealthResponse = { status: "ok", databases: deps.engine.databases() };
    return reply(c, 200, MESSAGES.success, data);
  });
  return app;
}
