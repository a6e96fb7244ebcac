/**
 * What one city-database record says about an address, in one shape for both record formats
 * (ip-location-db's flat records and MaxMind GeoIP2/GeoLite2 City records). Country facts that a
 * record does not carry (capital, currency, ...) are filled in later from the country code.
 */
import tzlookup from "@photostructure/tz-lookup";
import { subdivisionCode } from "../country/subdivision-codes.js";
import type { Names } from "../lang/index.js";
import type { PartToken } from "../types.js";
import { ValueObjects } from "./value-objects.js";

export interface Place {
  code: string | null;
  /** English */
  name: string | null;
  geonameId: number | null;
  /** the name by language, when the data has more than English (MaxMind format) */
  names?: Names | null;
}

export interface CityFacts {
  name: string | null;
  names?: Names | null;
  geonameId: number | null;
  latitude: number | null;
  longitude: number | null;
  accuracyRadius: number | null;
  metroCode: number | null;
  postalCode: string | null;
  timeZone: string | null;
}

export interface Located {
  continent: Place | null;
  country: Place | null;
  subdivision: { name: string | null; code: string | null; names?: Names | null } | null;
  city: CityFacts | null;
  /**
   * only MaxMind City records carry it; the bundled data takes it from asn-country. One object per
   * value, as the network part tokens need (ValueObjects).
   */
  registeredCountry: Place | null;
  /** this location's part tokens, by language and flag base (engine/part-tokens.ts): kept with the cached record */
  partTokens?: Map<object, PartToken>;
}

/** ip-location-db city record: `country_code, state1, state2, city, postcode, latitude, longitude, timezone`. */
export interface FlatCityRecord {
  country_code?: string;
  state1?: string;
  city?: string;
  postcode?: string;
  latitude?: number;
  longitude?: number;
  timezone?: string;
}

export function fromFlatRecord(record: FlatCityRecord): Located {
  const latitude = shortestFloat32(finite(record.latitude));
  const longitude = shortestFloat32(finite(record.longitude));
  return {
    continent: null,
    country: record.country_code ? { code: record.country_code.toUpperCase(), name: null, geonameId: null } : null,
    // DB-IP names the subdivision without its code: the ISO 3166-2 code of that name, when one fits.
    subdivision: record.state1
      ? { name: record.state1, code: record.country_code ? subdivisionCode(record.country_code.toUpperCase(), record.state1) : null }
      : null,
    city: {
      name: record.city || null,
      geonameId: null,
      latitude,
      longitude,
      accuracyRadius: null,
      metroCode: null,
      postalCode: record.postcode || null,
      // DB-IP Lite has no time zone: the zone that contains the coordinates stands in for it.
      timeZone: record.timezone || (latitude !== null && longitude !== null ? zoneAt(latitude, longitude) : null),
    },
    registeredCountry: null,
    partTokens: undefined,
  };
}

/**
 * ip-location-db's files store coordinates as 32-bit floats, so 51.5143 reads back as
 * 51.51430130004883. The shortest decimal that is the same 32-bit float is the value the data was
 * built from; a value that is no 32-bit float is left as it is.
 *
 * Decimal places are tried by arithmetic, not by `toPrecision` and a parse of its text (~10 times
 * slower, and run for each city record a lookup decodes): a 32-bit float has 24 significant bits
 * and 10^k for k ≤ 11 at most 26 more beside its power of two, so `magnitude * 10^k` is exact in
 * a double, `Math.round` rounds it half up as `toPrecision` does, and the division is the nearest
 * double to that decimal, as its parse would be. Outside the range where that holds, the text.
 */
export function shortestFloat32(value: number | null): number | null {
  if (value === null || Math.fround(value) !== value) return value;
  const magnitude = Math.abs(value);
  if (magnitude >= 1e-3 && magnitude < 1e4) {
    for (const scale of DECIMAL_SCALES) {
      const shorter = Math.round(magnitude * scale) / scale;
      if (Math.fround(shorter) === magnitude) return value < 0 ? -shorter : shorter;
    }
  }
  for (let digits = 1; digits <= 9; digits++) {
    const shorter = Number(value.toPrecision(digits));
    if (Math.fround(shorter) === value) return shorter;
  }
  return value;
}

/** 10^0 to 10^11: with values from 10^-3, nine significant digits (always enough for a 32-bit float) are at most 11 places */
const DECIMAL_SCALES = Array.from({ length: 12 }, (_, k) => 10 ** k);

function zoneAt(latitude: number, longitude: number): string | null {
  try {
    return tzlookup(latitude, longitude);
  } catch {
    return null;
  }
}

interface Named {
  names?: Record<string, string>;
  geoname_id?: number;
}

/** The subset of a GeoIP2 / GeoLite2 City record the Ip object uses. */
export interface MaxMindCityRecord {
  continent?: Named & { code?: string };
  country?: Named & { iso_code?: string };
  registered_country?: Named & { iso_code?: string };
  subdivisions?: Array<Named & { iso_code?: string }>;
  city?: Named;
  location?: { latitude?: number; longitude?: number; accuracy_radius?: number; metro_code?: number; time_zone?: string };
  postal?: { code?: string };
}

export function fromMaxMindRecord(record: MaxMindCityRecord): Located {
  const subdivision = record.subdivisions?.[0];
  const location = record.location;
  const hasCity = record.city || location || record.postal;
  return {
    continent: record.continent
      ? { code: record.continent.code ?? null, name: english(record.continent), geonameId: record.continent.geoname_id ?? null, names: record.continent.names ?? null }
      : null,
    country: place(record.country),
    subdivision: subdivision ? { name: english(subdivision), code: subdivision.iso_code ?? null, names: subdivision.names ?? null } : null,
    city: hasCity
      ? {
          name: record.city ? english(record.city) : null,
          names: record.city?.names ?? null,
          geonameId: record.city?.geoname_id ?? null,
          latitude: finite(location?.latitude),
          longitude: finite(location?.longitude),
          accuracyRadius: location?.accuracy_radius ?? null,
          metroCode: location?.metro_code ?? null,
          postalCode: record.postal?.code ?? null,
          timeZone: location?.time_zone ?? null,
        }
      : null,
    registeredCountry: registeredPlace(record.registered_country),
    partTokens: undefined,
  };
}

/** a few hundred countries, in the languages of the files loaded */
const registeredPlaces = new ValueObjects<Place>(10_000);

/** place(), the same object for every record of that value: a record's own would be new at each decode */
function registeredPlace(value: (Named & { iso_code?: string }) | undefined): Place | null {
  if (!value) return null;
  return registeredPlaces.of(`${value.iso_code}\t${value.geoname_id}`, () => place(value)!, (kept) => sameNames(kept.names, value.names));
}

function sameNames(a: Names | null | undefined, b: Names | null | undefined): boolean {
  if (!a || !b) return !a && !b;
  let count = 0;
  for (const language in b) {
    if (a[language] !== b[language]) return false;
    count++;
  }
  return count === Object.keys(a).length;
}

function place(value: (Named & { iso_code?: string }) | undefined): Place | null {
  if (!value) return null;
  return { code: value.iso_code?.toUpperCase() ?? null, name: english(value), geonameId: value.geoname_id ?? null, names: value.names ?? null };
}

function english(value: Named): string | null {
  return value.names?.en ?? null;
}

function finite(value: number | undefined): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}
