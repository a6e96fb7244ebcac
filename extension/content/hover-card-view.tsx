/**
 * The hover card's view: one address (or CIDR block), its flag, place and network, or why there
 * is none; Copy and the user's lookup services. A non-modal dialog with a label: it holds
 * controls, which a tooltip may not. Rendered by hover-card.tsx into an open shadow root.
 */
import { useState } from "preact/hooks";
import { blockSize, isEmptySummary, summarizeIp } from "../shared/card-model.js";
import { Flag } from "../shared/flag.js";
import { t, uiLanguage } from "../shared/i18n.js";
import { describeQuota, isQuotaLow } from "../shared/quota.js";
import { serviceUrl } from "../shared/services.js";
import { SummaryList } from "../shared/summary-list.js";
import { describeError } from "../shared/wire-error.js";
import { cardQuota, cardServices, type CardState } from "./card-state.js";

export function HoverCard({ state, id }: { state: CardState; id: string }) {
  const [copied, setCopied] = useState<string | null>(null);
  const summary = state.status === "ready" ? summarizeIp(state.ip, state.data) : null;
  const shown = state.prefix === undefined ? state.ip : `${state.ip}/${state.prefix}`;
  const copy = () => {
    navigator.clipboard?.writeText(shown).then(
      () => setCopied(shown),
      () => setCopied(null),
    );
  };
  const quota = cardQuota.value;
  return (
    <div class="card" role="dialog" id={id} aria-label={t("cardLabel", shown)}>
      <div class="head">
        {summary && <Flag img={summary.flagImg} emoji={summary.flag} country={summary.country} />}
        <span class="ip">{shown}</span>
        <button type="button" onClick={copy} aria-label={t("copyLabel", shown)}>
          {copied === shown ? t("copied") : t("copy")}
        </button>
      </div>
      {state.prefix !== undefined && <p class="note">{t("cidrNote", blockSize(state.ip, state.prefix, uiLanguage()))}</p>}
      {state.status === "private" && <p class="note">{t("privateAddress")}</p>}
      {state.status === "loading" && <p class="note">{t("lookingUp")}</p>}
      {state.status === "error" && <p class="error">{describeError(state.error)}</p>}
      {summary && isEmptySummary(summary) && <p class="note">{t("noLocation")}</p>}
      {summary && !isEmptySummary(summary) && <SummaryList summary={summary} />}
      {state.status !== "private" && cardServices.value.length > 0 && (
        <p class="links">
          {cardServices.value.map((service) => (
            <a key={service.url} href={serviceUrl(service, shown)} target="_blank" rel="noopener noreferrer">
              {service.name}
            </a>
          ))}
        </p>
      )}
      {isQuotaLow(quota) && <p class="error">{describeQuota(quota)}</p>}
    </div>
  );
}
