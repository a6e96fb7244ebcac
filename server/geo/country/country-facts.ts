/**
 * Everything known about a country from its ISO code alone: English name, capital, tld, phone code
 * and primary currency (world-countries), GeoNames id and continent (GeoNames), EU membership and
 * the flag. Built once at start-up so a lookup is one Map read.
 */
import countries from "world-countries";
import { GEONAMES_COUNTRIES } from "./geonames-countries.js";
import { EU_MEMBERS } from "./eu-members.js";
import { flagEmoji } from "./flag-emoji.js";

export interface CountryFacts {
  code: string;
  name: string | null;
  geonameId: number | null;
  continentCode: string | null;
  phoneCode: string | null;
  capital: string | null;
  tld: string | null;
  isEu: boolean;
  currency: { name: string | null; code: string; symbol: string | null } | null;
  flagEmoji: string | null;
  flagUnicode: string | null;
}

/** Where world-countries lists several dialling suffixes that are not area codes of +1 / +7. */
const PHONE_CODE_OVERRIDES: Record<string, string> = { EH: "+212", VA: "+379" };

function phoneCode(code: string, idd: { root: string; suffixes: string[] }): string | null {
  if (PHONE_CODE_OVERRIDES[code]) return PHONE_CODE_OVERRIDES[code]!;
  if (!idd.root) return null;
  if (idd.suffixes.length === 1) return idd.root + idd.suffixes[0];
  // Several suffixes under +1 / +7 are area codes: the country code is the root alone.
  if (idd.root === "+1" || idd.root === "+7" || idd.suffixes.length === 0) return idd.root;
  return idd.root + idd.suffixes[0];
}

/** "British pound" -> "British Pound", as the contract writes currency names. */
function titleCase(text: string): string {
  return text.replace(/(^|\s)(\p{Ll})/gu, (_match, space: string, letter: string) => space + letter.toUpperCase());
}

function buildFacts(): Map<string, CountryFacts> {
  const facts = new Map<string, CountryFacts>();
  for (const country of countries) {
    const code = country.cca2.toUpperCase();
    const geonames = GEONAMES_COUNTRIES.get(code);
    const [currencyCode, currency] = Object.entries(country.currencies ?? {})[0] ?? [];
    const flag = flagEmoji(code);
    facts.set(code, {
      code,
      name: country.name.common || null,
      geonameId: geonames?.geonameId ?? null,
      continentCode: geonames?.continent ?? null,
      phoneCode: phoneCode(code, country.idd),
      capital: country.capital[0] || null,
      tld: country.tld[0] || null,
      isEu: EU_MEMBERS.has(code),
      currency: currencyCode
        ? { code: currencyCode, name: currency?.name ? titleCase(currency.name) : null, symbol: currency?.symbol || null }
        : null,
      flagEmoji: flag?.emoji ?? null,
      flagUnicode: flag?.unicode ?? null,
    });
  }
  return facts;
}

const FACTS = buildFacts();

/** Facts of an ISO 3166-1 alpha-2 code; for a code world-countries lacks, what the code itself gives. */
export function countryFacts(code: string): CountryFacts {
  const known = FACTS.get(code); // codes arrive uppercase; the lookup by the code as given is the hot path
  if (known) return known;
  const upper = code.toUpperCase();
  if (FACTS.has(upper)) return FACTS.get(upper)!;
  const geonames = GEONAMES_COUNTRIES.get(upper);
  const flag = flagEmoji(upper);
  const unknown: CountryFacts = {
    code: upper,
    name: null,
    geonameId: geonames?.geonameId ?? null,
    continentCode: geonames?.continent ?? null,
    phoneCode: null,
    capital: null,
    tld: null,
    isEu: EU_MEMBERS.has(upper),
    currency: null,
    flagEmoji: flag?.emoji ?? null,
    flagUnicode: flag?.unicode ?? null,
  };
  FACTS.set(upper, unknown);
  return unknown;
}
