/** The quota headers of a limited plan (docs/api.md#plans-and-quota); null fields when the plan is unlimited or CORS hides them. */
export interface QuotaInfo {
  limit: number | null;
  remaining: number | null;
  /** epoch milliseconds of the next period's start */
  resetAt: number | null;
}

const int = (value: string | null): number | null => (value !== null && /^\d+$/.test(value.trim()) ? Number(value) : null);

export function quotaFromHeaders(headers: Headers): QuotaInfo {
  const reset = int(headers.get("x-ratelimit-reset"));
  return {
    limit: int(headers.get("x-ratelimit-limit")),
    remaining: int(headers.get("x-ratelimit-remaining")),
    resetAt: reset === null ? null : reset * 1000,
  };
}
