/**
 * Which data answered a convert request, for the attribution the data licences ask of a page
 * that shows results: DB-IP asks for a link to db-ip.com, MaxMind's GeoLite2 licence for a
 * credit line. The server names them in the `x-data-sources` header of every convert answer;
 * the widget links them. No zod here: the widget imports this file.
 */
export const DATA_SOURCES_HEADER = "x-data-sources";

export const DATA_SOURCES = {
  "DB-IP": { href: "https://db-ip.com", credit: "IP Geolocation by DB-IP; ASN data by RouteViews, DB-IP and NRO (CC BY 4.0)" },
  MaxMind: { href: "https://www.maxmind.com", credit: "This product includes GeoLite2 data created by MaxMind, available from https://www.maxmind.com" },
} as const;

export type DataSource = keyof typeof DATA_SOURCES;

/** The header's value as a list of known sources, in the order given; unknown names are dropped. */
export function parseDataSources(header: string | null | undefined): DataSource[] {
  return (header ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter((name): name is DataSource => Object.hasOwn(DATA_SOURCES, name));
}
