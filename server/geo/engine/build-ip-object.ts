/**
 * Assembles the Ip object of docs/api.md#the-ip-object from what the databases said, filling
 * country facts in from the country code. Every key is present; a nested object is null when none
 * of its fields (nested objects included) is known.
 */
import type { IpObject } from "../../../lib/schemas/ip-object.js";
import { CONTINENTS } from "../country/continents.js";
import { countryFacts } from "../country/country-facts.js";
import type { CityFacts, Located, Place } from "../sources/located.js";
import type { Asn } from "../sources/lookups.js";
import { continentNameIn, countryNameIn, isEnglish, nameIn, type Names } from "../lang/index.js";
import type { AddressFields } from "../types.js";

export interface Lookups {
  located: Located | null;
  /** from the city record (MaxMind) or the bundled asn-country data */
  registeredCountry: Place | null;
  asn: Asn | null;
}

export interface BuildContext {
  /** `${base}/flags/gb.svg`; null when no flag file exists for the code */
  flagUrl: (code: string) => string | null;
  /** canonical language tag of the names (lang/index.ts); null or English: the data's English names */
  lang?: string | null;
}

export function buildIpObject(address: AddressFields, lookups: Lookups, context: BuildContext): IpObject {
  const located = lookups.located;
  const lang = isEnglish(context.lang ?? null) ? null : context.lang!;
  const countryCode = located?.country?.code ?? null;
  const facts = countryCode ? countryFacts(countryCode) : null;

  const continentCode = located?.continent?.code ?? facts?.continentCode ?? null;
  const continentFacts = continentCode ? CONTINENTS.get(continentCode) : undefined;

  const country = facts
    ? {
        name: named(lang, located?.country?.name ?? facts.name, located?.country?.names, lang && countryNameIn(facts.code, lang)),
        code: facts.code,
        geoname_id: located?.country?.geonameId ?? facts.geonameId,
        phone_code: facts.phoneCode,
        capital: facts.capital,
        tld: facts.tld,
        // A copy: `located` is cached and shared by every address of its network.
        subdivision:
          located?.subdivision && (located.subdivision.name || located.subdivision.code)
            ? { name: named(lang, located.subdivision.name, located.subdivision.names), code: located.subdivision.code }
            : null,
        city: located?.city ? buildCity(located.city, address.timeNow, named(lang, located.city.name, located.city.names)) : null,
        flag: facts.flagEmoji
          ? { img: context.flagUrl(facts.code), emoji: facts.flagEmoji, emoji_unicode: facts.flagUnicode }
          : null,
        currency: facts.currency ? { name: facts.currency.name, code: facts.currency.code, symbol: facts.currency.symbol } : null,
      }
    : null;

  const continent =
    continentCode || country
      ? {
          name: named(lang, located?.continent?.name ?? continentFacts?.name ?? null, located?.continent?.names, lang && continentCode && continentNameIn(continentCode, lang)),
          code: continentCode,
          geoname_id: located?.continent?.geonameId ?? continentFacts?.geonameId ?? null,
          country,
        }
      : null;

  const registered = lookups.registeredCountry;
  const registeredFacts = registered?.code ? countryFacts(registered.code) : null;
  const registeredCountry =
    registered && (registered.code || registered.name || registered.geonameId !== null)
      ? {
          name: named(lang, registered.name ?? registeredFacts?.name ?? null, registered.names, lang && registered.code && countryNameIn(registered.code, lang)),
          code: registered.code,
          geoname_id: registered.geonameId ?? registeredFacts?.geonameId ?? null,
        }
      : null;

  // A copy, as for the subdivision: the source's object is shared by every address of its network.
  const asn = lookups.asn && (lookups.asn.number !== null || lookups.asn.name) ? { number: lookups.asn.number, name: lookups.asn.name } : null;
  return {
    ip: address.ip,
    type: address.type,
    is_eu: facts ? facts.isEu : null,
    continent,
    registered_country: registeredCountry,
    asn,
    completion_time: completionTime(address.completionUs),
  };
}

/**
 * The English name unless the data (or, for countries and continents, CLDR: `byCode`) has one in
 * `lang`. A module function, not a closure per Ip object: this runs on every lookup.
 */
function named(lang: string | null, english: string | null, names: Names | null | undefined, byCode?: string | null | false | undefined): string | null {
  return lang === null ? english : (nameIn(names, lang) ?? (byCode ? byCode : null) ?? english);
}

function buildCity(city: CityFacts, timeNow: string | null, name: string | null): NonNullable<NonNullable<IpObject["continent"]>["country"]>["city"] {
  const timezone = city.timeZone ? { name: city.timeZone, time_now: timeNow } : null;
  const known =
    timezone ||
    name ||
    city.geonameId !== null ||
    city.latitude !== null ||
    city.longitude !== null ||
    city.accuracyRadius !== null ||
    city.metroCode !== null ||
    city.postalCode;
  if (!known) return null;
  return {
    name,
    geoname_id: city.geonameId,
    latitude: city.latitude,
    longitude: city.longitude,
    accuracy_radius: city.accuracyRadius,
    metro_code: city.metroCode,
    postal_code: city.postalCode,
    timezone,
  };
}

/** The lookup's own duration in whole microseconds: what the engine keeps per address (a small integer, no object). */
export function completionMicros(milliseconds: number): number {
  return Math.round(milliseconds * 1000);
}

/** completion_time from its microseconds: for answers, and for stored rows read back (storage/record-codec.ts) */
export function completionTime(us: number): { miliseconds: number; seconds: number } {
  return { miliseconds: us / 1000, seconds: us / 1_000_000 };
}
