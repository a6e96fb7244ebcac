/**
 * `X-RateLimit-Limit`, `-Remaining` and `-Reset` (epoch seconds of the next period) on convert
 * answers of limited plans (docs/api.md#plans-and-quota). The convert route records the state; this
 * writes it on the final response, whatever that turns out to be (a 429 included).
 */
import type { MiddlewareHandler } from "hono";

export interface QuotaState {
  /** null for unlimited plans: no headers */
  limit: number | null;
  used: number;
  /** start of the next period */
  resetAt: Date;
}

declare module "hono" {
  interface ContextVariableMap {
    /** plan usage after a convert request, for the X-RateLimit-* headers */
    quota: QuotaState;
  }
}

export const QUOTA_HEADERS = ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"] as const;

/** The X-RateLimit-* headers for a quota state; none for an unlimited plan. */
export function quotaHeaderValues(quota: QuotaState): Record<string, string> {
  if (quota.limit === null) return {};
  return {
    "X-RateLimit-Limit": String(quota.limit),
    "X-RateLimit-Remaining": String(Math.max(0, quota.limit - quota.used)),
    "X-RateLimit-Reset": String(Math.floor(quota.resetAt.getTime() / 1000)),
  };
}

export function quotaHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const quota = c.get("quota");
    if (!quota) return;
    for (const [name, value] of Object.entries(quotaHeaderValues(quota))) c.res.headers.set(name, value);
  };
}
