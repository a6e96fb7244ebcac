/**
 * Identity tokens for the parts of an Ip object that repeat across conversions (ConvertParts in
 * ../types.ts). The sources hand out one object per database record (a cached `Located`, one ASN
 * and one registered-country object per value), so a token follows those objects: the same
 * objects, and the same public base for flag URLs, give the same token. Storage uses the tokens
 * to serialise each distinct part once instead of once per conversion.
 */
import type { ConvertParts } from "../types.js";

export class PartTokens {
  /** stands for "nothing known" in either part */
  private readonly none = {};
  /** by language: the names in the location part differ per language */
  private locations = new Map<string, WeakMap<object, object>>();
  private readonly networks = new Map<string, WeakMap<object, WeakMap<object, object>>>();
  private base = "";

  /**
   * `located`: the city source's cached record object, or null; `base`: the flag URL base in use;
   * `lang`: the language of the names (null: English).
   */
  of(located: object | null, registeredCountry: object | null, asn: object | null, base: string, lang: string | null = null): ConvertParts {
    if (base !== this.base) {
      // flag.img lives in the location part: a new base means new location texts
      this.base = base;
      this.locations = new Map();
    }
    const key = lang ?? "";
    // the registered country's name is in the language too
    const network = this.network(key, registeredCountry, asn);
    if (!located) return { location: this.none, network };
    return { location: tokenFor(perLang(this.locations, key), located), network };
  }

  private network(lang: string, registeredCountry: object | null, asn: object | null): object {
    const byCountry = perLang(this.networks, lang);
    const first = registeredCountry ?? this.none;
    let byAsn = byCountry.get(first);
    if (!byAsn) byCountry.set(first, (byAsn = new WeakMap()));
    return tokenFor(byAsn, asn ?? this.none);
  }
}

/** The map of one language; languages are few, but a flood of odd tags must not grow this without end. */
function perLang<T extends WeakKey, V>(maps: Map<string, WeakMap<T, V>>, lang: string): WeakMap<T, V> {
  let map = maps.get(lang);
  if (!map) {
    if (maps.size >= 100) maps.clear();
    maps.set(lang, (map = new WeakMap()));
  }
  return map;
}

function tokenFor(tokens: WeakMap<object, object>, source: object): object {
  let token = tokens.get(source);
  if (!token) tokens.set(source, (token = {}));
  return token;
}
