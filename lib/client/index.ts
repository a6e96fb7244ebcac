/**
 * Typed client for the public IP Atlas API (convert and bulk convert), on ky and the shared wire
 * schemas. Generic on purpose: base URL and key are options, so the extension, the dashboard or a
 * script can use it. Every failure becomes an ApiError (errors.ts); nothing is retried here, the
 * caller decides (the extension backs off until the server's reset time).
 */
import ky, { TimeoutError } from "ky";
import type { z } from "zod";
import { envelopeSchema, errorEnvelopeSchema, type Envelope } from "../schemas/envelope.js";
import { bulkConvertResponseSchema, convertResponseSchema, LIMITS, type BulkResultItem } from "../schemas/api.js";
import type { IpObject } from "../schemas/ip-object.js";
import { MESSAGES } from "../schemas/messages.js";
import { ApiError, classifyError, retryAtFromHeaders } from "./errors.js";
import { quotaFromHeaders, type QuotaInfo } from "./quota.js";

export { ApiError, isApiError, type ApiErrorKind } from "./errors.js";
export type { QuotaInfo } from "./quota.js";

export interface ClientOptions {
  /** the server, e.g. `https://geo.example.com` (a path prefix is kept) */
  baseUrl: string;
  /** secret (`ipa_sk_`) or public (`ipa_pk_`) key */
  apiKey: string;
  /** per request; default 15 s */
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** clock for Retry-After arithmetic (tests) */
  now?: () => number;
}

export interface ApiResult<T> {
  data: T;
  message: string;
  requestId: string;
  quota: QuotaInfo;
}

export interface IpAtlasClient {
  /** GET /convert: one address, or the caller's own when `ip` is omitted. `data` is null when the lookup broke. */
  convert(ip?: string): Promise<ApiResult<IpObject | null>>;
  /** POST /convert: 1 to 5000 addresses, answered in request order. */
  bulkConvert(ips: readonly string[]): Promise<ApiResult<BulkResultItem[]>>;
}

/** `https://x/` and `https://x` both work; ky's prefixUrl wants the trailing slash. */
function prefixOf(baseUrl: string): string {
  const url = new URL(baseUrl); // throws TypeError on garbage: caught by createClient's callers
  return url.href.endsWith("/") ? url.href : `${url.href}/`;
}

export function createClient(options: ClientOptions): IpAtlasClient {
  const now = options.now ?? Date.now;
  const http = ky.create({
    prefixUrl: prefixOf(options.baseUrl),
    headers: { "x-api-key": options.apiKey },
    timeout: options.timeoutMs ?? 15_000,
    retry: 0,
    throwHttpErrors: false,
    credentials: "omit",
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });

  async function send<T extends z.ZodType>(request: () => Promise<Response>, data: T): Promise<ApiResult<z.infer<T>>> {
    let response: Response;
    try {
      response = await request();
    } catch (error) {
      const reason = error instanceof TimeoutError ? "did not answer in time" : "could not be reached";
      throw new ApiError({ kind: "unreachable", status: 0, message: `The IP Atlas server ${reason}` });
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      body = undefined;
    }
    const requestId = response.headers.get("x-request-id");
    if (response.ok) {
      const parsed = envelopeSchema(data).safeParse(body);
      if (parsed.success) {
        // zod cannot carry the generic through envelopeSchema(); the shape is checked above.
        const ok = parsed.data as Envelope<z.infer<T>>;
        return {
          data: ok.data,
          message: ok.message,
          requestId: ok._req.reqId,
          quota: quotaFromHeaders(response.headers),
        };
      }
    } else {
      const parsed = errorEnvelopeSchema.safeParse(body);
      if (parsed.success) {
        const { message, data: details } = parsed.data;
        const kind = classifyError(response.status, message);
        const limited = kind === "quota-exceeded" || kind === "rate-limited";
        throw new ApiError({
          kind,
          message,
          status: response.status,
          details,
          retryAt: limited ? retryAtFromHeaders(response.headers, now()) : null,
          requestId: parsed.data._req.reqId,
        });
      }
    }
    throw new ApiError({
      kind: "bad-response",
      status: response.status,
      message: `The server answered HTTP ${response.status} without an IP Atlas envelope: is the Server URL right?`,
      requestId,
    });
  }

  return {
    convert(ip) {
      const searchParams = ip === undefined ? undefined : { ip };
      return send(() => http.get("convert", { searchParams }), convertResponseSchema);
    },
    async bulkConvert(ips) {
      if (ips.length < 1 || ips.length > LIMITS.ipsPerRequest) {
        throw new ApiError({ kind: "invalid-request", status: 400, message: MESSAGES.ipsCount });
      }
      return send(() => http.post("convert", { json: { ips } }), bulkConvertResponseSchema);
    },
  };
}
