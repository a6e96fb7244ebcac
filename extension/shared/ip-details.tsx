/** An address with its flag, place and network, for the popup (the hover card has its own compact view). */
import type { IpObject } from "../../lib/schemas/ip-object.js";
import { Flag } from "./flag.js";
import { SummaryList } from "./summary-list.js";
import { isEmptySummary, NO_LOCATION_LABEL, PRIVATE_LABEL, summarizeIp } from "./card-model.js";

export function IpDetails({ ip, data, isPublic = true }: { ip: string; data: IpObject | null; isPublic?: boolean }) {
  const summary = summarizeIp(ip, data);
  return (
    <div>
      <div class="mono">
        <Flag img={summary.flagImg} emoji={summary.flag} country={summary.country} /> {ip}
      </div>
      {!isPublic ? (
        <p class="muted">{PRIVATE_LABEL}</p>
      ) : isEmptySummary(summary) ? (
        <p class="muted">{NO_LOCATION_LABEL}</p>
      ) : (
        <SummaryList summary={summary} />
      )}
    </div>
  );
}
