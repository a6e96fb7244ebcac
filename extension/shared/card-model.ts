/**
 * What a hover card or the popup shows for one address, from the server's Ip object: plain text
 * fields, so the views stay dumb and this stays testable.
 */
import type { IpObject } from "../../lib/schemas/ip-object.js";

export interface IpSummary {
  ip: string;
  /** emoji flag, null when the country is unknown */
  flag: string | null;
  /** URL of the server's SVG flag */
  flagImg: string | null;
  country: string | null;
  /** "City, Subdivision" as far as known */
  place: string | null;
  /** "AS15169 Google LLC" */
  network: string | null;
  /** only when it differs from the located country */
  registeredCountry: string | null;
}


export function summarizeIp(ip: string, data: IpObject | null): IpSummary {
  const country = data?.continent?.country ?? null;
  const city = country?.city?.name ?? null;
  const subdivision = country?.subdivision?.name ?? null;
  const place = [city, subdivision].filter((part, i, all) => part && all.indexOf(part) === i).join(", ") || null;
  const asn = data?.asn ?? null;
  const network =
    asn && (asn.number !== null || asn.name)
      ? [asn.number !== null ? `AS${asn.number}` : null, asn.name].filter(Boolean).join(" ")
      : null;
  const registered = data?.registered_country ?? null;
  const differs = registered?.code && registered.code !== country?.code;
  return {
    ip,
    flag: country?.flag?.emoji ?? null,
    flagImg: country?.flag?.img ?? null,
    country: country?.name ?? null,
    place,
    network,
    registeredCountry: differs ? (registered!.name ?? registered!.code) : null,
  };
}

/** True when the summary has nothing to show but the address. */
export function isEmptySummary(summary: IpSummary): boolean {
  return !summary.country && !summary.place && !summary.network && !summary.registeredCountry;
}

/** How many addresses a CIDR block holds: "65,536", or "2^96" where the number gets unwieldy. */
export function blockSize(ip: string, prefix: number, lang = "en"): string {
  const bits = (ip.includes(":") ? 128 : 32) - prefix;
  return bits <= 32 ? new Intl.NumberFormat(lang).format(2 ** bits) : `2^${bits}`;
}
