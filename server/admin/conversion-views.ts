/**
 * The dashboard's read views of stored conversions, built on Storage.listConversions:
 * a page with an optional status filter, and the where-from aggregate for the map.
 */
import countries from "world-countries";
import type { AdminConversionList, ConversionMap } from "../../lib/schemas/admin.js";
import type { ConversionStatus } from "../../lib/schemas/api.js";
import type { IpFilter, Storage } from "../storage/types.js";

const SCAN_CHUNK = 500;
/** the status filter looks at this many of the newest rows at most (see docs/dashboard.md) */
export const STATUS_SCAN_LIMIT = 50_000;

export interface ConversionPageQuery {
  projectId: string;
  offset: number;
  limit: number;
  ip?: IpFilter | undefined;
  status?: ConversionStatus | undefined;
}

export async function conversionPage(storage: Storage, query: ConversionPageQuery): Promise<AdminConversionList> {
  const { projectId, offset, limit, ip, status } = query;
  if (!status) {
    const page = await storage.listConversions({ projectId, offset, limit, ip });
    return { conversions: page.conversions, totalCount: page.totalCount, hasMore: offset + page.conversions.length < page.totalCount };
  }
  // The storage interface filters by address only, so a status filter walks the newest rows in
  // chunks. Fine for a dashboard; the walk stops at STATUS_SCAN_LIMIT rows.
  const conversions: AdminConversionList["conversions"] = [];
  let matching = 0;
  for (let at = 0; at < STATUS_SCAN_LIMIT; at += SCAN_CHUNK) {
    const chunk = await storage.listConversions({ projectId, offset: at, limit: SCAN_CHUNK, ip });
    for (const conversion of chunk.conversions) {
      if (conversion.status !== status) continue;
      if (matching >= offset && conversions.length < limit) conversions.push(conversion);
      matching++;
    }
    if (chunk.conversions.length < SCAN_CHUNK) break;
  }
  return { conversions, totalCount: matching, hasMore: offset + conversions.length < matching };
}

const numericByAlpha2 = new Map(countries.map((c) => [c.cca2, c.ccn3 || null]));

export async function conversionMap(storage: Storage, projectId: string, recent: number): Promise<ConversionMap> {
  const { conversions } = await storage.listConversions({ projectId, offset: 0, limit: recent });
  const points = new Map<string, ConversionMap["points"][number]>();
  const byCountry = new Map<string, ConversionMap["countries"][number]>();
  for (const { data } of conversions) {
    const country = data.continent?.country;
    if (!country) continue;
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
    if (typeof latitude !== "number" || typeof longitude !== "number") continue;
    // ~10 km cells: close addresses share one dot
    const lat = Math.round(latitude * 10) / 10;
    const lon = Math.round(longitude * 10) / 10;
    const key = `${lat},${lon}`;
    const point = points.get(key) ?? {
      latitude: lat,
      longitude: lon,
      count: 0,
      label: [country.city?.name, country.name].filter(Boolean).join(", ") || key,
    };
    point.count++;
    points.set(key, point);
  }
  return {
    sampled: conversions.length,
    points: [...points.values()].sort((a, b) => b.count - a.count),
    countries: [...byCountry.values()].sort((a, b) => b.count - a.count),
  };
}
