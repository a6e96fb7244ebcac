/** The labelled facts of one address (country, place, network, registered country): one view for the hover card and the popup. */
import type { IpSummary } from "./card-model.js";

export function SummaryList({ summary }: { summary: IpSummary }) {
  return (
    <dl>
      {summary.country && <><dt>Country</dt><dd>{summary.country}</dd></>}
      {summary.place && <><dt>Place</dt><dd>{summary.place}</dd></>}
      {summary.network && <><dt>Network</dt><dd>{summary.network}</dd></>}
      {summary.registeredCountry && <><dt>Registered in</dt><dd>{summary.registeredCountry}</dd></>}
    </dl>
  );
}
