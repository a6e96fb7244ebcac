/**
 * Identity tokens for the parts of an Ip object that repeat across conversions (ConvertParts in
 * ../types.ts). The sources hand out one object per database record (a cached `Located`, one ASN
 * and one registered-country object per value), so a token follows those objects: the same
 * objects, and the same public base for flag URLs, give the same token. Storage uses the tokens
 * to serialise each distinct part once instead of once per conversion.
 *
 * No WeakMaps (see PartToken): a location's tokens are kept on its `Located`, in a set the record
 * cache hands it, which outlives the `Located` (a record decoded again gets the same set back,
 * sources/record-cache.ts KeptPartTokens); network tokens in maps that start afresh when full.
 */
import type { ConvertParts, PartToken } from "../types.js";
import type { Located } from "../sources/located.js";

/** network tokens kept before their maps start afresh: about one per (registered country, ASN) pair seen */
const MAX_NETWORK_TOKENS = 50_000;
/** languages kept apart before their maps start afresh: a flood of odd tags must not grow them without end */
const MAX_LANGUAGES = 100;

export function newPartToken(): PartToken {
  return { json: undefined, stored: undefined };
}

export class PartTokens {
  /** stands for "nothing known" as a location */
  private readonly none = newPartToken();
  /**
   * One object per language and public base, the key of a location's tokens on its `Located`:
   * the names differ per language, and flag.img lives in the location part, so a new base gets
   * new objects and so new tokens.
   */
  private contexts = new Map<string, object>();
  private base = "";
  /** by language, registered country, then ASN */
  private networks = new Map<string, Map<object, Map<object, PartToken>>>();
  private networkCount = 0;

  /**
   * `located`: the city source's cached record object, or null; `base`: the flag URL base in use;
   * `lang`: the language of the names (null: English).
   */
  of(located: Located | null, registeredCountry: object | null, asn: object | null, base: string, lang: string | null = null): ConvertParts {
    const key = lang ?? "";
    // the registered country's name is in the language too
    const network = this.network(key, registeredCountry, asn);
    if (!located) return { location: this.none, network };
    if (base !== this.base) {
      this.base = base;
      this.contexts = new Map();
    }
    let context = this.contexts.get(key);
    if (!context) {
      if (this.contexts.size >= MAX_LANGUAGES) this.contexts.clear();
      this.contexts.set(key, (context = {}));
    }
    const tokens = (located.partTokens ??= new Map());
    let location = tokens.get(context);
    if (!location) {
      // contexts left behind by a new base or a flood of languages go with it
      if (tokens.size >= MAX_LANGUAGES) tokens.clear();
      tokens.set(context, (location = newPartToken()));
    }
    return { location, network };
  }

  private network(lang: string, registeredCountry: object | null, asn: object | null): PartToken {
    if (this.networkCount >= MAX_NETWORK_TOKENS || (this.networks.size >= MAX_LANGUAGES && !this.networks.has(lang))) {
      this.networks = new Map();
      this.networkCount = 0;
    }
    let byCountry = this.networks.get(lang);
    if (!byCountry) this.networks.set(lang, (byCountry = new Map()));
    const first = registeredCountry ?? this.none;
    let byAsn = byCountry.get(first);
    if (!byAsn) byCountry.set(first, (byAsn = new Map()));
    const second = asn ?? this.none;
    let token = byAsn.get(second);
    if (!token) {
      byAsn.set(second, (token = newPartToken()));
      this.networkCount++;
    }
    return token;
  }
}
