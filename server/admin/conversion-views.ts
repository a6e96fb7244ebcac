/**
 * The dashboard's read views of stored conversions, built on Storage.listConversions: a page of
 * the filtered list, the where-from aggregate for the map with conversions per day, and the
 * filtered rows for export. Storage filters by address only; status, country and ASN are
 * matched here while walking the newest rows in chunks.
 */
import countries from "world-countries";
import { MAP_DAYS, type AdminConversionList, type ConversionMap } from "../../lib/schemas/admin.js";
import type { ConversionStatus } from "../../lib/schemas/api.js";
import { conversionParts, type LocationPart } from "../storage/index.js";
import type { IpFilter, Storage, StoredConversion } from "../storage/types.js";

export const SCAN_CHUNK = 500;
/** a filter beyond the address looks at this many of the newest rows at most (see docs/dashboard.md) */
export const STATUS_SCAN_LIMIT = 50_000;

export interface ConversionFilter {
  ip?: IpFilter | undefined;
  status?: ConversionStatus | undefined;
  /** ISO alpha-2, upper case */
  country?: string | undefined;
  asn?: number | undefined;
}

export interface ConversionPageQuery extends ConversionFilter {
  projectId: string;
  offset: number;
  limit: number;
}

/** True when the row passes the filters storage cannot apply. */
export function matches(conversion: StoredConversion, { status, country, asn }: ConversionFilter): boolean {
  if (status && conversion.status !== status) return false;
  if (!country && asn === undefined) return true;
  const { location, network } = conversionParts(conversion);
  if (country && location.continent?.country?.code !== country) return false;
  if (asn !== undefined && network.asn?.number !== asn) return false;
  return true;
}

const scansRows = ({ status, country, asn }: ConversionFilter) => Boolean(status || country || asn !== undefined);

/**
 * Every matching row, newest first, until `visit` returns false or `maxRows` stored rows were
 * looked at. Without a filter beyond the address storage pages directly.
 */
export async function visitMatching(
  storage: Storage,
  projectId: string,
  filter: ConversionFilter,
  visit: (conversion: StoredConversion) => boolean | void,
  maxRows = STATUS_SCAN_LIMIT,
): Promise<void> {
  let looked = 0;
  for await (const page of storage.walkConversions(projectId, filter.ip, Math.min(SCAN_CHUNK, maxRows))) {
    for (const conversion of page) {
      if (looked++ >= maxRows) return;
      if (matches(conversion, filter) && visit(conversion) === false) return;
    }
  }
}

export async function conversionPage(storage: Storage, query: ConversionPageQuery): Promise<AdminConversionList> {
  const { projectId, offset, limit } = query;
  if (!scansRows(query)) {
    const page = await storage.listConversions({ projectId, offset, limit, ip: query.ip });
    return { conversions: page.conversions, totalCount: page.totalCount, hasMore: offset + page.conversions.length < page.totalCount };
  }
  const conversions: AdminConversionList["conversions"] = [];
  let matching = 0;
  await visitMatching(storage, projectId, query, (conversion) => {
    if (matching >= offset && conversions.length < limit) conversions.push(conversion);
    matching++;
  });
  return { conversions, totalCount: matching, hasMore: offset + conversions.length < matching };
}

const numericByAlpha2 = new Map(countries.map((c) => [c.cca2, c.ccn3 || null]));
const DAY_MS = 86_400_000;

/**
 * The map of the newest `recent` matching conversions (countries and ~10 km points) and the
 * matching conversions per UTC day over the last MAP_DAYS days.
 */
export async function conversionMap(storage: Storage, projectId: string, recent: number, filter: ConversionFilter = {}, now = new Date()): Promise<ConversionMap> {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const firstDay = today - (MAP_DAYS - 1) * DAY_MS;
  const perDay = new Array<number>(MAP_DAYS).fill(0);
  const points = new Map<string, ConversionMap["points"][number]>();
  const byCountry = new Map<string, ConversionMap["countries"][number]>();
  let sampled = 0;

  await visitMatching(storage, projectId, filter, (conversion) => {
    const { createdAt } = conversion;
    const at = Date.parse(createdAt);
    if (at >= firstDay) perDay[Math.min(MAP_DAYS - 1, Math.floor((at - firstDay) / DAY_MS))]!++;
    if (sampled < recent) {
      sampled++;
      addToMap(conversionParts(conversion).location, points, byCountry);
    }
    // newest first: once past both the sample and the first day, nothing more counts
    return sampled < recent || at >= firstDay;
  });
  return {
    sampled,
    points: [...points.values()].sort((a, b) => b.count - a.count),
    countries: [...byCountry.values()].sort((a, b) => b.count - a.count),
    days: perDay.map((count, i) => ({ day: new Date(firstDay + i * DAY_MS).toISOString().slice(0, 10), count })),
  };
}

function addToMap(location: LocationPart, points: Map<string, ConversionMap["points"][number]>, byCountry: Map<string, ConversionMap["countries"][number]>) {
  const country = location.continent?.country;
  if (!country) return;
  if (country.code) {
    const entry = byCountry.get(country.code) ?? {
      code: country.code,
      numeric: numericByAlpha2.get(country.code) ?? null,
      name: country.name ?? country.code,
      count: 0,
    };
    entry.count++;
    byCountry.set(country.code, entry);
  }
  const { latitude, longitude } = country.city ?? {};
  if (typeof latitude !== "number" || typeof longitude !== "number") return;
  // ~10 km cells: close addresses share one dot
  const lat = Math.round(latitude * 10) / 10;
  const lon = Math.round(longitude * 10) / 10;
  const key = `${lat},${lon}`;
  const point = points.get(key) ?? { latitude: lat, longitude: lon, count: 0, label: [country.city?.name, country.name].filter(Boolean).join(", ") || key };
  point.count++;
  points.set(key, point);
}
