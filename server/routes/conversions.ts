/**
 * Reading stored conversions (docs/api.md#endpoints): GET/POST /conversions/get and GET
 * /conversions/list, always within the key's project, `data` cut to `select`.
 */
import { Hono, type Context } from "hono";
import { conversionSchema, getConversionsBodySchema, LIMITS } from "../../lib/schemas/api.js";
import { MESSAGES } from "../../lib/schemas/messages.js";
import { applySelect, parseSelect } from "../../lib/select/index.js";
import type { IpObjectPath } from "../../lib/schemas/ip-object.js";
import type { AppDeps, AppEnv } from "../app-types.js";
import { ApiError, reply, replyJsonText } from "../middleware/envelope.js";
import { jsonBody } from "../middleware/json-body.js";
import { API_ROUTES } from "./api-routes.js";
import { conversionJson, parseIpSearch } from "../storage/index.js";
import type { StoredConversion } from "../storage/types.js";
import { storableText } from "../convert/convert-and-store.js";

const isUuid = (value: unknown): value is string => conversionSchema.shape.uniqueId.safeParse(value).success;

function selectFrom(c: Context<AppEnv>): IpObjectPath[] | null {
  const parsed = parseSelect(c.req.queries("select"));
  if (!parsed.ok) throw new ApiError(400, MESSAGES.invalidSelect, { invalidFields: parsed.invalidFields });
  return parsed.paths;
}

/** A conversion as the API shows it, as JSON text, its `data` cut to `select` (conversionJson) */
function presentJson(conversion: StoredConversion, select: IpObjectPath[] | null): string {
  return conversionJson(conversion, select ? JSON.stringify(applySelect(conversion.data, select)) : undefined);
}

/** `{"conversions":[…]` and what follows it, as pieces of text for the envelope to join once */
function conversionsJson(conversions: StoredConversion[], select: IpObjectPath[] | null, after: string): string[] {
  const pieces = ['{"conversions":['];
  for (let i = 0; i < conversions.length; i++) {
    if (i > 0) pieces.push(",");
    pieces.push(presentJson(conversions[i]!, select));
  }
  pieces.push(`]${after}}`);
  return pieces;
}

/** A non-negative integer query value, or the default when absent/empty; 400 naming it otherwise. */
function integerParam(c: Context<AppEnv>, name: string, fallback: number, min: number, max: number, message: string): number {
  const raw = c.req.query(name);
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d{1,16}$/.test(raw)) throw new ApiError(400, message);
  const value = Number(raw);
  if (value < min || value > max) throw new ApiError(400, message);
  return value;
}

export function conversionRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const projectId = (c: Context<AppEnv>) => c.get("auth").project.id;

  app.get(API_ROUTES.getConversions.path, async (c) => {
    const id = c.req.query("conversionId");
    if (id === undefined || id === "") throw new ApiError(400, MESSAGES.conversionIdRequired);
    if (!isUuid(id)) throw new ApiError(400, MESSAGES.invalidConversionIds, { invalidIds: [id] });
    const select = selectFrom(c);
    const conversion = await deps.storage.getConversion(projectId(c), id.toLowerCase());
    if (!conversion) return reply(c, 200, MESSAGES.conversionNotFound, null);
    return replyJsonText(c, 200, MESSAGES.success, presentJson(conversion, select));
  });

  app.post(API_ROUTES.getConversions.path, jsonBody(), async (c) => {
    const body = c.get("jsonBody") as { conversionIds?: unknown } | null;
    const ids = body !== null && typeof body === "object" && !Array.isArray(body) ? body.conversionIds : undefined;
    if (!Array.isArray(ids)) throw new ApiError(400, MESSAGES.conversionIdsNotArray);
    const sized = getConversionsBodySchema.shape.conversionIds.safeParse(ids.map(String));
    if (!sized.success) throw new ApiError(400, MESSAGES.conversionIdsCount);
    const invalidIds = ids.filter((id) => !isUuid(id));
    if (invalidIds.length > 0) throw new ApiError(400, MESSAGES.invalidConversionIds, { invalidIds });
    const select = selectFrom(c);
    const unique = [...new Set((ids as string[]).map((id) => id.toLowerCase()))];
    const conversions = await deps.storage.getConversions(projectId(c), unique);
    return replyJsonText(c, 200, MESSAGES.success, conversionsJson(conversions, select, ""));
  });

  app.get(API_ROUTES.listConversions.path, async (c) => {
    const offset = integerParam(c, "offset", 0, 0, Number.MAX_SAFE_INTEGER, MESSAGES.invalidOffset);
    const limit = integerParam(c, "limit", LIMITS.listLimitDefault, 1, LIMITS.listLimitMax, MESSAGES.invalidLimit);
    const select = selectFrom(c);
    const ipSearch = storableText(c.req.query("ipSearch") ?? "").trim();
    const result = await deps.storage.listConversions({
      projectId: projectId(c),
      offset,
      limit,
      ip: ipSearch ? parseIpSearch(ipSearch) : undefined,
    });
    const hasMore = offset + result.conversions.length < result.totalCount;
    return replyJsonText(c, 200, MESSAGES.success, conversionsJson(result.conversions, select, `,"hasMore":${hasMore},"totalCount":${result.totalCount}`));
  });

  return app;
}
