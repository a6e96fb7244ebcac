/** An address with its flag, place and network, a Copy button and the lookup services, for the popup and options. */
import type { IpObject } from "../../lib/schemas/ip-object.js";
import { CopyButton } from "./copy-button.js";
import { Flag } from "./flag.js";
import { t } from "./i18n.js";
import { ServiceLinks } from "./service-links.js";
import type { LookupService } from "./services.js";
import { SummaryList } from "./summary-list.js";
import { isEmptySummary, summarizeIp } from "./card-model.js";

export interface IpDetailsProps {
  ip: string;
  data: IpObject | null;
  isPublic?: boolean;
  services?: readonly LookupService[];
}

export function IpDetails({ ip, data, isPublic = true, services = [] }: IpDetailsProps) {
  const summary = summarizeIp(ip, data);
  return (
    <div>
      <div class="mono address">
        <Flag img={summary.flagImg} emoji={summary.flag} country={summary.country} /> <span>{ip}</span>{" "}
        <CopyButton text={ip} label={t("copyLabel", ip)} />
      </div>
      {!isPublic ? (
        <p class="muted">{t("privateAddress")}</p>
      ) : isEmptySummary(summary) ? (
        <p class="muted">{t("noLocation")}</p>
      ) : (
        <SummaryList summary={summary} />
      )}
      {isPublic && <ServiceLinks ip={ip} services={services} />}
    </div>
  );
}
