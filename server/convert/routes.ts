/**
 * GET /convert (one address, default: the caller's) and POST /convert (1–5000 addresses),
 * docs/api.md#endpoints. Every address is stored and counted; a request that needs more than the
 * plan has left is refused whole with 429 and stores nothing.
 */
import { Hono, type Context } from "hono";
import { LIMITS } from "../../lib/schemas/api.js";
import { MESSAGES } from "../../lib/schemas/messages.js";
import type { AppDeps, AppEnv } from "../app-types.js";
import { ApiError, replyJsonChunks, replyJsonText } from "../middleware/envelope.js";
import { jsonBody } from "../middleware/json-body.js";
import { API_ROUTES } from "../routes/api-routes.js";
import { AdmissionQueue, bulkAdmission } from "../middleware/bulk-admission.js";
import { retryAfterHeader, type Converter } from "./converter.js";
import type { GeoEngine } from "../geo/types.js";
import { encodeBulkData } from "./bulk-answer.js";
import { canonicalLang, isEnglish, langFromAcceptLanguage } from "../geo/lang/index.js";

/**
 * The language of the names (docs/api.md "Language"): the `lang` query parameter, else on GET the
 * Accept-Language header, else English. A `lang` that is no language tag is a 400; an
 * Accept-Language without a usable tag is English (browsers send all sorts). Returns the language
 * (null for English) and the headers that say so.
 */
export function answerLanguage(
  param: string | undefined,
  acceptLanguage: string | undefined,
  fromHeader: boolean,
): { lang: string | null; headers: Record<string, string> } {
  let lang: string | null;
  if (param !== undefined && param.trim() !== "") {
    lang = canonicalLang(param);
    if (!lang) throw new ApiError(400, MESSAGES.invalidLang);
  } else {
    lang = fromHeader ? langFromAcceptLanguage(acceptLanguage) : null;
  }
  const headers: Record<string, string> = fromHeader ? { vary: "Accept-Language" } : {};
  headers["content-language"] = lang ?? "en";
  return { lang: isEnglish(lang) ? null : lang, headers };
}

function languageFor(c: Context<AppEnv>, fromHeader: boolean): string | null {
  const { lang, headers } = answerLanguage(c.req.query("lang"), fromHeader ? c.req.header("accept-language") : undefined, fromHeader);
  if (headers.vary) c.header("Vary", headers.vary, { append: true });
  c.header("Content-Language", headers["content-language"]);
  return lang;
}

declare module "hono" {
  interface ContextVariableMap {
    /** conversions this request stored, for the metrics */
    conversionsStored: number;
  }
}

/** The bulk stored and counted, and its answer's `data` (encoded while the rows are written). */
async function convertForRequest(converter: Converter, engine: GeoEngine, c: Context<AppEnv>, inputs: string[], lang: string | null): Promise<Buffer[]> {
  const outcome = await converter.store(c.get("auth").project, inputs, lang, (items) => encodeBulkData(items, engine));
  c.set("quota", { limit: outcome.limit, used: outcome.used, resetAt: outcome.resetAt });
  if (!outcome.accepted) throw new ApiError(429, MESSAGES.quotaExceeded, null, retryAfterHeader(outcome.resetAt));
  c.set("conversionsStored", outcome.items.length);
  return outcome.answer;
}

/**
 * A bulk's answer of this many addresses or more ends its connection (`Connection: close`). Its
 * megabytes may reach the client's reading seconds after the server handed the last of them to
 * the kernel, which is when Node's keep-alive timer starts: a client that then sends its next
 * request on the same connection can meet the server closing it for idleness (docs/api.md
 * "Decisions where the contract is silent"). A new connection costs such a bulk next to nothing.
 */
const CLOSE_AFTER_ADDRESSES = 1000;

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
  const { converter, engine } = appDeps;

  // Every convert answer names the data to credit (the widget links them).
  app.use(API_ROUTES.convert.path, async (c, next) => {
    c.header(...converter.sourcesHeader());
    await next();
  });

  app.get(API_ROUTES.convert.path, async (c) => {
    const ip = c.req.query("ip");
    const lang = languageFor(c, true);
    // omitted or empty once trimmed (docs/api.md#conversion-records): the caller's own address
    const answer = await converter.one(c.get("auth").project, ip === undefined || ip.trim() === "" ? c.get("clientIp") : ip, lang);
    c.set("quota", answer.quota);
    if (answer.stored) c.set("conversionsStored", answer.stored);
    return replyJsonText(c, answer.status, answer.message, answer.dataJson, answer.headers);
  });

  // Bulks queue before their body is read: a few run at once, the rest wait their key's turn or get 503.
  const admission = new AdmissionQueue();
  appDeps.metrics?.trackBulkAdmission(admission);
  app.post(API_ROUTES.convert.path, bulkAdmission(admission), jsonBody(), async (c) => {
    const body = c.get("jsonBody");
    const problem = bulkBodyMessage(body);
    if (problem) throw new ApiError(400, problem);
    const lang = languageFor(c, false);
    const ips = (body as { ips: string[] }).ips;
    const answer = await convertForRequest(converter, engine, c, ips, lang);
    return replyJsonChunks(c, 200, MESSAGES.success, answer, ips.length >= CLOSE_AFTER_ADDRESSES ? { connection: "close" } : {});
  });

  return app;
}
