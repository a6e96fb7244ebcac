/**
 * What a widget shows in each state. One fixed box for loading, result and error, so nothing on
 * the host page moves when the answer arrives.
 */
import type { ReadonlySignal } from "@preact/signals";
import type { IpObject } from "../../lib/schemas/ip-object.js";
import type { ErrorEnvelope } from "../../lib/schemas/envelope.js";
import { countryName } from "./country-name.js";
import type { Field, WidgetSettings } from "./settings.js";

export type WidgetState =
  | { status: "loading" }
  | { status: "ready"; data: IpObject }
  | { status: "error"; error: ErrorEnvelope };

/**
 * The bundled data is CC BY 4.0 (DB-IP Lite city; ASN by RouteViews, DB-IP and NRO): DB-IP asks
 * for a visible link to db-ip.com, the title names the other sources.
 */
function Attribution() {
  return (
    <a
      part="attribution"
      class="attribution"
      href="https://db-ip.com"
      target="_blank"
      rel="noopener noreferrer"
      title="IP Geolocation by DB-IP; ASN data by RouteViews, DB-IP and NRO (CC BY 4.0)"
    >
      IP data: DB-IP
    </a>
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

function Result({ data, fields, lang }: { data: IpObject; fields: readonly Field[]; lang: string }) {
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
          <Attribution />
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
        <Result data={current.data} fields={fields} lang={lang || pageLang} />
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
