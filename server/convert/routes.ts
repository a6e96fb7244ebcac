/**
 * GET /convert (one address, default: the caller's) and POST /convert (1–5000 addresses),
 * docs/api.md#endpoints. Every address is stored and counted; a request that needs more than the
 * plan has left is refused whole with 429 and stores nothing.
 */
import { Hono, type Context } from "hono";
import { bulkConvertBodySchema } from "../../lib/schemas/api.js";
import { DATA_SOURCES_HEADER } from "../../lib/schemas/data-sources.js";
import { MESSAGES } from "../../lib/schemas/messages.js";
import type { AppDeps, AppEnv } from "../app-types.js";
import { ApiError, reply } from "../middleware/envelope.js";
import { jsonBody } from "../middleware/json-body.js";
import { API_ROUTES } from "../routes/api-routes.js";
import { convertAndStore, UsageFloor, type ConvertedItem } from "./convert-and-store.js";
import { dataSources } from "../geo/engine/credits.js";

declare module "hono" {
  interface ContextVariableMap {
    /** conversions this request stored, for the metrics */
    conversionsStored: number;
  }
}

async function convertForRequest(
  deps: AppDeps & { usageFloor: UsageFloor },
  c: Context<AppEnv>,
  inputs: string[],
): Promise<ConvertedItem[]> {
  const outcome = await convertAndStore(deps, c.get("auth").project, inputs);
  c.set("quota", { limit: outcome.limit, used: outcome.used, resetAt: outcome.resetAt });
  if (!outcome.accepted) {
    const retryAfter = Math.max(1, Math.ceil((outcome.resetAt.getTime() - Date.now()) / 1000));
    throw new ApiError(429, MESSAGES.quotaExceeded, null, { "Retry-After": String(retryAfter) });
  }
  c.set("conversionsStored", outcome.items.length);
  return outcome.items;
}

function bulkBodyMessage(body: unknown): string | null {
  const parsed = bulkConvertBodySchema.safeParse(body);
  if (parsed.success) return null;
  const countIssue = parsed.error.issues.some(
    (issue) => issue.path.length === 1 && issue.path[0] === "ips" && (issue.code === "too_small" || issue.code === "too_big"),
  );
  return countIssue ? MESSAGES.ipsCount : MESSAGES.ipsNotStrings;
}

export function convertRoutes(appDeps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const deps = { ...appDeps, usageFloor: new UsageFloor() };

  // Every convert answer names the data to credit (the widget links them).
  const sources = dataSources(deps.engine.databases()).join(", ");
  app.use(API_ROUTES.convert.path, async (c, next) => {
    c.header(DATA_SOURCES_HEADER, sources);
    await next();
  });

  app.get(API_ROUTES.convert.path, async (c) => {
    const ip = c.req.query("ip");
    // omitted or empty once trimmed (docs/api.md#conversion-records): the caller's own address
    const [item] = await convertForRequest(deps, c, [ip === undefined || ip.trim() === "" ? c.get("clientIp") : ip]);
    const headers = { "x-conversion-id": item!.conversionId };
    if (item!.status === "invalid-ip-address") return reply(c, 400, MESSAGES.invalidIp, null, headers);
    if (item!.status === "failed") return reply(c, 200, MESSAGES.conversionFailed, null, headers);
    return reply(c, 200, MESSAGES.success, item!.data, headers);
  });

  app.post(API_ROUTES.convert.path, jsonBody(), async (c) => {
    const body = c.get("jsonBody");
    const problem = bulkBodyMessage(body);
    if (problem) throw new ApiError(400, problem);
    const items = await convertForRequest(deps, c, (body as { ips: string[] }).ips);
    return reply(
      c,
      200,
      MESSAGES.success,
      items.map((item) => ({
        ip: item.input,
        conversion: item.status === "success" ? item.data : null,
        conversionId: item.conversionId,
      })),
    );
  });

  return app;
}
