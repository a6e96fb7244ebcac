/** used / limit of the current month, as a meter; unlimited plans show the count without a bar end. */
import type { Usage } from "./schemas.js";
import { formatDate, formatNumber } from "./format.js";

export function UsageBar({ usage }: { usage: Usage }) {
  const { used, limit } = usage;
  const share = limit === null ? null : Math.min(1, limit === 0 ? 1 : used / limit);
  const level = share === null ? "ok" : share >= 1 ? "full" : share >= 0.8 ? "high" : "ok";
  const text =
    limit === null
      ? `${formatNumber(used)} conversions this month (unlimited plan)`
      : `${formatNumber(used)} of ${formatNumber(limit)} conversions used this month`;
  return (
    <div class="usage">
      <div class="usage-text">
        <span data-testid="usage-text">{text}</span>
        <span class="muted">resets {formatDate(usage.periodEnd, false)}</span>
      </div>
      <div
        class={`usage-bar ${level}`}
        role="meter"
        aria-label="Conversions used this month"
        aria-valuemin={0}
        aria-valuemax={limit ?? undefined}
        aria-valuenow={used}
        aria-valuetext={text}
      >
        <span style={{ width: share === null ? "100%" : `${share * 100}%` }} class={share === null ? "unlimited" : ""} />
      </div>
    </div>
  );
}
