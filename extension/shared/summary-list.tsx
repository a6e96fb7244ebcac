/** The labelled facts of one address (country, place, network, registered country): one view for the hover card and the popup. */
import type { IpSummary } from "./card-model.js";
import { t } from "./i18n.js";

export function SummaryList({ summary }: { summary: IpSummary }) {
  return (
    <dl>
      {summary.country && <><dt>{t("country")}</dt><dd>{summary.country}</dd></>}
      {summary.place && <><dt>{t("place")}</dt><dd>{summary.place}</dd></>}
      {summary.network && <><dt>{t("network")}</dt><dd>{summary.network}</dd></>}
      {summary.registeredCountry && <><dt>{t("registeredIn")}</dt><dd>{summary.registeredCountry}</dd></>}
    </dl>
  );
}
