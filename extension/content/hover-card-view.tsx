/**
 * The hover card's view: one address, its flag, place and network, or why there is none.
 * role="tooltip" with readable labels; hover-card.tsx renders it into an open shadow root.
 */
import { useState } from "preact/hooks";
import { NO_LOCATION_LABEL, PRIVATE_LABEL, isEmptySummary, summarizeIp } from "../shared/card-model.js";
import { describeError } from "../shared/wire-error.js";
import { Flag } from "../shared/flag.js";
import { SummaryList } from "../shared/summary-list.js";
import type { CardState } from "./card-state.js";

export function HoverCard({ state, id }: { state: CardState; id: string }) {
  const [copied, setCopied] = useState<string | null>(null);
  const summary = state.status === "ready" ? summarizeIp(state.ip, state.data) : null;
  const copy = () => {
    navigator.clipboard?.writeText(state.ip).then(
      () => setCopied(state.ip),
      () => setCopied(null),
    );
  };
  return (
    <div class="card" role="tooltip" id={id} aria-label={`IP address ${state.ip}`}>
      <div class="head">
        {summary && <Flag img={summary.flagImg} emoji={summary.flag} country={summary.country} />}
        <span class="ip">{state.ip}</span>
        <button type="button" onClick={copy} aria-label={`Copy ${state.ip}`}>
          {copied === state.ip ? "Copied" : "Copy"}
        </button>
      </div>
      {state.status === "private" && <p class="note">{PRIVATE_LABEL}</p>}
      {state.status === "loading" && <p class="note">Looking up…</p>}
      {state.status === "error" && <p class="error">{describeError(state.error)}</p>}
      {summary && isEmptySummary(summary) && <p class="note">{NO_LOCATION_LABEL}</p>}
      {summary && !isEmptySummary(summary) && (
        <SummaryList summary={summary} />
      )}
    </div>
  );
}
