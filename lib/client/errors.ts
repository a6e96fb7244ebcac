/**
 * Typed failures of the public API. The envelope's exact message tells apart what the status
 * alone cannot (401 missing / invalid key / origin not allowed, 429 quota / rate limit), so a UI
 * can say plainly what is wrong and a caller knows until when to stay quiet.
 */
import { MESSAGES } from "../schemas/messages.js";

export type ApiErrorKind =
  | "unreachable" // no HTTP answer at all: DNS, refused, offline, timeout
  | "bad-response" // an HTTP answer that is not an IP Atlas envelope
  | "missing-key"
  | "invalid-key"
  | "origin-not-allowed"
  | "forbidden"
  | "quota-exceeded"
  | "rate-limited"
  | "invalid-request"
  | "server-error";

export interface ApiErrorInit {
  kind: ApiErrorKind;
  message: string;
  /** HTTP status, 0 when there was no answer */
  status: number;
  /** envelope data: details of a validation error (invalidIds, invalidFields), else null */
  details?: Record<string, unknown> | null;
  /** epoch milliseconds before which asking again is pointless (429), else null */
  retryAt?: number | null;
  requestId?: string | null;
}

export class ApiError extends Error {
  readonly kind: ApiErrorKind;
  readonly status: number;
  readonly details: Record<string, unknown> | null;
  readonly retryAt: number | null;
  readonly requestId: string | null;

  constructor(init: ApiErrorInit) {
    super(init.message);
    this.name = "ApiError";
    this.kind = init.kind;
    this.status = init.status;
    this.details = init.details ?? null;
    this.retryAt = init.retryAt ?? null;
    this.requestId = init.requestId ?? null;
  }
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}

/** Which failure an error envelope describes, from its status and exact message. */
export function classifyError(status: number, message: string): ApiErrorKind {
  if (status === 401) {
    if (message === MESSAGES.missingKey) return "missing-key";
    if (message === MESSAGES.originNotAllowed) return "origin-not-allowed";
    return "invalid-key";
  }
  if (status === 403) return "forbidden";
  if (status === 429) return message === MESSAGES.quotaExceeded ? "quota-exceeded" : "rate-limited";
  if (status >= 400 && status < 500) return "invalid-request";
  return "server-error";
}

/**
 * When a 429 may be retried: Retry-After (seconds or an HTTP date) first, else
 * X-RateLimit-Reset (epoch seconds), else null. Headers may be hidden by CORS; callers then
 * fall back to their own pause.
 */
export function retryAtFromHeaders(headers: Headers, now: number): number | null {
  const retryAfter = headers.get("retry-after")?.trim();
  if (retryAfter) {
    if (/^\d+$/.test(retryAfter)) return now + Number(retryAfter) * 1000;
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return date;
  }
  const reset = headers.get("x-ratelimit-reset")?.trim();
  if (reset && /^\d+$/.test(reset)) return Number(reset) * 1000;
  return null;
}
