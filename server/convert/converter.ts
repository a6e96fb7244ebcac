/**
 * What the convert routes and the fast GET path (fast-get.ts) share, made once per process: the
 * usage floor, the `x-data-sources` value, and one address converted, stored and made into its
 * answer (GET /convert, docs/api.md#endpoints).
 */
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { DATA_SOURCES_HEADER } from "../../lib/schemas/data-sources.js";
import { MESSAGES } from "../../lib/schemas/messages.js";
import { dataSources } from "../geo/engine/credits.js";
import type { GeoEngine } from "../geo/types.js";
import type { Project, Storage } from "../storage/types.js";
import { convertAndStore, UsageFloor, type ConvertedItem, type ConvertOutcome } from "./convert-and-store.js";
import type { QuotaState } from "./quota-headers.js";

/** GET /convert's answer before it becomes HTTP: the envelope's parts and the route's own headers. */
export interface OneAnswer {
  status: ContentfulStatusCode;
  message: string;
  /** the envelope's `data` as JSON text */
  dataJson: string;
  /** x-conversion-id, or Retry-After on a 429 */
  headers: Record<string, string>;
  quota: QuotaState;
  /** conversions stored (0 or 1), for the metrics */
  stored: number;
}

export interface Converter {
  /** the `x-data-sources` header every convert answer carries */
  sourcesHeader(): [name: string, value: string];
  /** addresses converted, stored and counted against the plan, past this process's usage floor */
  store<A = undefined>(project: Project, inputs: readonly string[], lang: string | null, answerWith?: (items: ConvertedItem[]) => Promise<A>): Promise<ConvertOutcome<A>>;
  one(project: Project, input: string, lang: string | null): Promise<OneAnswer>;
}

/** A refused request's Retry-After: the seconds until the quota period resets, at least 1. */
export function retryAfterHeader(resetAt: Date): Record<string, string> {
  return { "Retry-After": String(Math.max(1, Math.ceil((resetAt.getTime() - Date.now()) / 1000))) };
}

/** A stored conversion's answer; a function of the module, not a closure per request (tsx names each closure it makes). */
function storedAnswer(status: ContentfulStatusCode, message: string, dataJson: string, headers: Record<string, string>, quota: QuotaState): OneAnswer {
  return { status, message, dataJson, headers, quota, stored: 1 };
}

export function createConverter(deps: { storage: Storage; engine: GeoEngine }): Converter {
  const usageFloor = new UsageFloor();
  // An update can change the publisher while serving; the list is worked out again at most once
  // a second, which is as often as the engine looks at its files.
  let sources = "";
  let sourcesAt = -Infinity;
  const withFloor = { ...deps, usageFloor };

  const store = <A = undefined>(project: Project, inputs: readonly string[], lang: string | null, answerWith?: (items: ConvertedItem[]) => Promise<A>) =>
    convertAndStore(withFloor, project, inputs, new Date(), lang, answerWith);

  return {
    store,
    sourcesHeader() {
      const now = performance.now();
      if (now - sourcesAt >= 1000) {
        sources = dataSources(deps.engine.databases()).join(", ");
        sourcesAt = now;
      }
      return [DATA_SOURCES_HEADER, sources];
    },
    async one(project, input, lang) {
      const outcome = await store(project, [input], lang);
      const quota = { limit: outcome.limit, used: outcome.used, resetAt: outcome.resetAt };
      if (!outcome.accepted) {
        return { status: 429, message: MESSAGES.quotaExceeded, dataJson: "null", headers: retryAfterHeader(outcome.resetAt), quota, stored: 0 };
      }
      const item = outcome.items[0]!;
      const headers = { "x-conversion-id": item.uniqueId };
      if (item.status === "invalid-ip-address") return storedAnswer(400, MESSAGES.invalidIp, "null", headers, quota);
      if (item.status === "failed") return storedAnswer(200, MESSAGES.conversionFailed, "null", headers, quota);
      return storedAnswer(200, MESSAGES.success, deps.engine.toJson(item.result), headers, quota);
    },
  };
}
