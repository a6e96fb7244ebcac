/**
 * GET /bench/lookup: the baseline bench/api.ts compares GET /convert against. Same key check and
 * envelope, the same engine lookup, but nothing stored or counted. Mounted only with
 * IPATLAS_BENCH_ROUTES=1.
 */
import { Hono } from "hono";
import { MESSAGES } from "../../lib/schemas/messages.js";
import type { AppDeps, AppEnv } from "../app-types.js";
import { reply, replyJsonText } from "../middleware/envelope.js";
import { API_ROUTES } from "./api-routes.js";

export function benchRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get(API_ROUTES.benchLookup.path, (c) => {
    const result = deps.engine.convert(c.req.query("ip") || c.get("clientIp"), new Date());
    if (result.status === "invalid-ip-address") return reply(c, 400, MESSAGES.invalidIp, null);
    return result.status === "success" ? replyJsonText(c, 200, MESSAGES.success, deps.engine.toJson(result)) : reply(c, 200, MESSAGES.success, null);
  });
  return app;
}
