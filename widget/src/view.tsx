/**
 * What a widget shows in each state. One fixed box for loading, result and error, so nothing on
 * the host page moves when the answer arrives.
 */
import type { ReadonlySignal } from "@preact/signals";
import type { IpObject } from "../../lib/schemas/ip-object.js";
import type { ErrorEnvelope } from "../../lib/schemas/envelope.js";
import { DATA_SOURCES, type DataSource } from "../../lib/schemas/data-sources.js";
import { countryName } from "./country-name.js";
import type { Field, WidgetSettings } from "./settings.js";

export type WidgetState =
  | { status: "loading" }
  | { status: "ready"; data: IpObject; sources?: DataSource[] }
  | { status: "error"; error: ErrorEnvelope };

/**
 * A visible link to each data source the server named (lib/schemas/data-sources.ts), as their
 * licences ask; the server's default data (DB-IP) until an answer says otherwise.
 */
function Attribution({ sources }: { sources?: readonly DataSource[] }) {
  const shown: readonly DataSource[] = sources?.length ? sources : ["DB-IP"];
  return (
    <span class="attribution">
      IP data:{" "}
      {shown.map((source, i) => (
        <>
          {i > 0 && ", "}
          <a part="attribution" href={DATA_SOURCES[source].href} target="_blank" rel="noopener noreferrer" title={DATA_SOURCES[source].credit}>
            {source}
          </a>
        </>
      ))}
    </span>
  );
}

export interface ViewProps {
  state: ReadonlySignal<WidgetState>;
  settings: ReadonlySignal<WidgetSettings>;
  /** the page's language when the widget has none of its own */
  pageLang: string;
}

function join(parts: Array<string | null | undefined | false>, separator: string): string {
  return parts.filter(Boolean).join(separator);
}

function Result({ data, sources, fields, lang }: { data: IpObject; sources?: DataSource[]; fields: readonly Field[]; lang: string }) {
  const show = (field: Field) => fields.includes(field);
  const country = data.continent?.country ?? null;
  const flag = country?.flag ?? null;
  const name = country ? countryName(country.code, lang, country.name) : "";
  // Country first: when the box is too narrow, the ellipsis eats the city, not the country.
  const place = join(
    [show("country") && name, join([show("city") && country?.city?.name, show("region") && country?.subdivision?.name], ", ")],
    " · ",
  );
  const network = join(
    [show("ip") && data.ip, show("asn") && data.asn?.number != null && `AS${data.asn.number}`, show("asn") && data.asn?.name],
    " · ",
  );
  return (
    <>
      {show("flag") && flag?.img ? (
        <img part="flag" class="flag" src={flag.img} alt={name} width={24} height={18} decoding="async" />
      ) : show("flag") && flag?.emoji ? (
        <span part="flag" class="emoji" role="img" aria-label={name}>{flag.emoji}</span>
      ) : null}
      <span class="text">
        <span part="place" class="line" title={place}>{place || (country ? name : "Location unknown")}</span>
        <span class="row">
          <span part="network" class="sub">{network}</span>
          <Attribution sources={sources} />
        </span>
      </span>
    </>
  );
}

export function WidgetView({ state, settings, pageLang }: ViewProps) {
  const current = state.value;
  const { theme, fields, lang } = settings.value;
  return (
    <div part="box" class={`box ${theme}`} role="status" aria-busy={current.status === "loading" ? "true" : "false"} data-status={current.status}>
      {current.status === "loading" ? (
        <>
          <span class="skel flag" />
          <span class="text">
            <span class="skel" />
            <span class="skel short" />
          </span>
        </>
      ) : current.status === "ready" ? (
        <Result data={current.data} sources={current.sources} fields={fields} lang={lang || pageLang} />
      ) : (
        <span class="text">
          <span part="error" class="line error" title={current.error.message}>Location unavailable</span>
          <span class="row">
            <span class="sub" />
            <Attribution />
          </span>
        </span>
      )}
    </div>
  );
}
