/**
 * GET /convert (one address, default: the caller's) and POST /convert (1–5000 addresses),
 * docs/api.md#endpoints. Every address is stored and counted; a request that needs more than the
 * plan has left is refused whole with 429 and stores nothing.
 */
import { Hono, type Context } from "hono";
import { LIMITS } from "../../lib/schemas/api.js";
import { DATA_SOURCES_HEADER } from "../../lib/schemas/data-sources.js";
import { MESSAGES } from "../../lib/schemas/messages.js";
import type { AppDeps, AppEnv } from "../app-types.js";
import { ApiError, reply, replyJsonChunks, replyJsonText } from "../middleware/envelope.js";
import { jsonBody } from "../middleware/json-body.js";
import { API_ROUTES } from "../routes/api-routes.js";
import { AdmissionQueue, bulkAdmission } from "../middleware/bulk-admission.js";
import { convertAndStore, UsageFloor, type ConvertedItem } from "./convert-and-store.js";
import { encodeBulkData } from "./bulk-answer.js";
import { dataSources } from "../geo/engine/credits.js";
import { canonicalLang, isEnglish, langFromAcceptLanguage } from "../geo/lang/index.js";

/**
 * The language of the names (docs/api.md "Language"): the `lang` query parameter, else on GET the
 * Accept-Language header, else English. A `lang` that is no language tag is a 400; an
 * Accept-Language without a usable tag is English (browsers send all sorts).
 */
function answerLanguage(c: Context<AppEnv>, fromHeader: boolean): string | null {
  const param = c.req.query("lang");
  let lang: string | null;
  if (param !== undefined && param.trim() !== "") {
    lang = canonicalLang(param);
    if (!lang) throw new ApiError(400, MESSAGES.invalidLang);
  } else {
    lang = fromHeader ? langFromAcceptLanguage(c.req.header("accept-language")) : null;
  }
  if (fromHeader) c.header("Vary", "Accept-Language", { append: true });
  c.header("Content-Language", lang ?? "en");
  return isEnglish(lang) ? null : lang;
}

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
  lang: string | null,
): Promise<ConvertedItem[]> {
  const outcome = await convertAndStore(deps, c.get("auth").project, inputs, new Date(), lang);
  c.set("quota", { limit: outcome.limit, used: outcome.used, resetAt: outcome.resetAt });
  if (!outcome.accepted) {
    const retryAfter = Math.max(1, Math.ceil((outcome.resetAt.getTime() - Date.now()) / 1000));
    throw new ApiError(429, MESSAGES.quotaExceeded, null, { "Retry-After": String(retryAfter) });
  }
  c.set("conversionsStored", outcome.items.length);
  return outcome.items;
}

/**
 * The 400 message for a body that is not `{ips: string[]}` with 1-5000 items, as
 * `bulkConvertBodySchema` (the OpenAPI contract) would judge it: a count out of range wins over
 * items that are not strings. A loop rather than the zod parse, which cost ~3.5 ms per 5000 strings.
 */
function bulkBodyMessage(body: unknown): string | null {
  const ips = typeof body === "object" && body !== null && !Array.isArray(body) ? (body as { ips?: unknown }).ips : undefined;
  if (!Array.isArray(ips)) return MESSAGES.ipsNotStrings;
  if (ips.length < 1 || ips.length > LIMITS.ipsPerRequest) return MESSAGES.ipsCount;
  for (let i = 0; i < ips.length; i++) if (typeof ips[i] !== "string") return MESSAGES.ipsNotStrings;
  return null;
}

export function convertRoutes(appDeps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const deps = { ...appDeps, usageFloor: new UsageFloor() };

  // Every convert answer names the data to credit (the widget links them). An update can change
  // the publisher while serving; the list is worked out again at most once a second, which is
  // as often as the engine looks at its files.
  let sources = "";
  let sourcesAt = -Infinity;
  app.use(API_ROUTES.convert.path, async (c, next) => {
    const now = performance.now();
    if (now - sourcesAt >= 1000) {
      sources = dataSources(deps.engine.databases()).join(", ");
      sourcesAt = now;
    }
    c.header(DATA_SOURCES_HEADER, sources);
    await next();
  });

  app.get(API_ROUTES.convert.path, async (c) => {
    const ip = c.req.query("ip");
    const lang = answerLanguage(c, true);
    // omitted or empty once trimmed (docs/api.md#conversion-records): the caller's own address
    const [item] = await convertForRequest(deps, c, [ip === undefined || ip.trim() === "" ? c.get("clientIp") : ip], lang);
    const headers = { "x-conversion-id": item!.conversionId };
    if (item!.status === "invalid-ip-address") return reply(c, 400, MESSAGES.invalidIp, null, headers);
    if (item!.status === "failed") return reply(c, 200, MESSAGES.conversionFailed, null, headers);
    return replyJsonText(c, 200, MESSAGES.success, deps.engine.toJson(item!), headers);
  });

  // Bulks queue before their body is read: a few run at once, the rest wait their key's turn or get 503.
  app.post(API_ROUTES.convert.path, bulkAdmission(new AdmissionQueue()), jsonBody(), async (c) => {
    const body = c.get("jsonBody");
    const problem = bulkBodyMessage(body);
    if (problem) throw new ApiError(400, problem);
    const lang = answerLanguage(c, false);
    const items = await convertForRequest(deps, c, (body as { ips: string[] }).ips, lang);
    return replyJsonChunks(c, 200, MESSAGES.success, await encodeBulkData(items, deps.engine.toJson));
  });

  return app;
}
