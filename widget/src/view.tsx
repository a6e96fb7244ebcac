/**
 * What a widget shows in each state. The box takes the width of its content and wraps inside a
 * narrower container instead of cutting text; the full text is also the box's tooltip, and the
 * badge variant opens its details on hover and keyboard focus.
 */
import type { IpObject } from "../../lib/schemas/ip-object.js";
import { DATA_SOURCES, type DataSource } from "../../lib/schemas/data-sources.js";
import { countryName } from "./country-name.js";
import type { Explanation } from "./explain.js";
import type { Field, WidgetSettings } from "./settings.js";

export type WidgetState =
  | { status: "loading" }
  | { status: "ready"; data: IpObject; sources?: DataSource[] }
  /** no location to show: an error, a private address, or an address the data does not know */
  | { status: "empty"; why: Explanation };

/** The data credit the licences ask for: small, a link per source the server named (DB-IP by default). */
function Credit({ sources }: { sources?: readonly DataSource[] }) {
  const shown: readonly DataSource[] = sources?.length ? sources : ["DB-IP"];
  return (
    <span class="credit">
      {shown.map((source, i) => (
        <>
          {i > 0 && " · "}
          <a part="attribution" href={DATA_SOURCES[source].href} target="_blank" rel="noopener noreferrer" title={DATA_SOURCES[source].credit}>
            {source}
          </a>
        </>
      ))}
    </span>
  );
}

export interface ViewProps {
  state: WidgetState;
  settings: WidgetSettings;
  /** the page's language when the widget has none of its own */
  pageLang: string;
  /** for the local time; injected so tests and re-renders agree */
  now: Date;
}

const join = (parts: Array<string | null | undefined | false>, separator = " · ") => parts.filter(Boolean).join(separator);

/** hh:mm in the address's time zone, in the reader's language; "" when unknown */
function localTime(zone: string | null | undefined, lang: string, now: Date): string {
  if (!zone) return "";
  try {
    return `${new Intl.DateTimeFormat(lang || undefined, { hour: "numeric", minute: "2-digit", timeZone: zone }).format(now)} local time`;
  } catch {
    return "";
  }
}

interface Lines {
  place: string;
  extra: string;
  network: string;
}

function lines(data: IpObject, fields: readonly Field[], lang: string, now: Date): Lines {
  const show = (field: Field) => fields.includes(field);
  const country = data.continent?.country;
  const city = country?.city;
  return {
    place: join([show("country") && countryName(country?.code, lang, country?.name), show("city") && city?.name]),
    extra: join([show("region") && country?.subdivision?.name, show("time") && localTime(city?.timezone?.name, lang, now)]),
    network: join([show("asn") && data.asn?.number != null && `AS${data.asn.number} ${data.asn.name ?? ""}`.trim(), show("ip") && data.ip]),
  };
}

function Flag({ data, lang }: { data: IpObject; lang: string }) {
  const country = data.continent?.country;
  const flag = country?.flag;
  const name = countryName(country?.code, lang, country?.name);
  if (flag?.img) return <img part="flag" class="flag" src={flag.img} alt={name} width={24} height={18} decoding="async" />;
  if (flag?.emoji) return <span part="flag" class="flag emoji" role="img" aria-label={name}>{flag.emoji}</span>;
  return null;
}

export function WidgetView({ state, settings, pageLang, now }: ViewProps) {
  const { theme, fields, lang: ownLang, variant } = settings;
  const lang = ownLang || pageLang;
  const badge = variant === "badge";
  let body;
  let full = "";
  if (state.status === "loading") {
    body = (
      <>
        <span class="skel flag" />
        <span class="text">
          <span class="skel" />
          {!badge && <span class="skel short" />}
        </span>
      </>
    );
  } else if (state.status === "ready") {
    const { place, extra, network } = lines(state.data, fields, lang, now);
    full = join([place, extra, network], "\n");
    body = (
      <>
        {fields.includes("flag") && <Flag data={state.data} lang={lang} />}
        <span class="text">
          {/* without place fields the network is the headline */}
          <span part={place ? "place" : "network"} class="line">{place || network || state.data.ip}</span>
          <span class="more">
            {extra && <span part="extra" class="sub">{extra}</span>}
            {network && place && <span part="network" class="sub">{network}</span>}
            <Credit sources={state.sources} />
          </span>
        </span>
      </>
    );
  } else {
    const { why } = state;
    full = `${why.title}\n${why.detail}`;
    body = (
      <span class="text">
        <span part="error" class="line">{why.title}</span>
        <span class="more">
          <span class="sub">{why.detail}</span>
          <Credit />
        </span>
      </span>
    );
  }
  return (
    <div
      part="box"
      class={`box ${theme} ${variant}`}
      role="status"
      aria-busy={state.status === "loading" ? "true" : "false"}
      data-status={state.status === "empty" ? "error" : state.status}
      data-reason={state.status === "empty" ? state.why.reason : undefined}
      title={full || undefined}
      // focusable so keyboard users reach the badge's details
      tabIndex={badge && full ? 0 : undefined}
    >
      {body}
    </div>
  );
}
