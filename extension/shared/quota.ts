/**
 * What the extension says about the project's monthly quota, from the `X-RateLimit-*` headers of
 * the last answer: always in the popup, and on the card once little is left (before lookups stop).
 */
import type { QuotaInfo } from "../../lib/client/index.js";
import { t, uiLanguage } from "./i18n.js";

/** Where the worker keeps the last quota the server reported (extension storage), for the popup. */
export const QUOTA_KEY = "quota";

/** "Little": at most a tenth of the plan, or 50 lookups, whichever is more. */
export function isQuotaLow(quota: QuotaInfo | null | undefined): boolean {
  if (!quota || quota.limit === null || quota.remaining === null) return false;
  return quota.remaining <= Math.max(50, quota.limit / 10);
}

/** "913 of 1,000 lookups left this month (until Dec 1)", or null when the plan is unlimited or unknown. */
export function describeQuota(quota: QuotaInfo | null | undefined): string | null {
  if (!quota || quota.limit === null || quota.remaining === null) return null;
  const lang = uiLanguage();
  const number = new Intl.NumberFormat(lang);
  const left = t("quotaLeft", number.format(quota.remaining), number.format(quota.limit));
  if (quota.resetAt === null) return left;
  const until = new Intl.DateTimeFormat(lang, { month: "short", day: "numeric", timeZone: "UTC" }).format(quota.resetAt);
  return `${left} ${t("quotaUntil", until)}`;
}
