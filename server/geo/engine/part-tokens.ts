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
  private locations = new WeakMap<object, object>();
  private readonly networks = new WeakMap<object, WeakMap<object, object>>();
  private base = "";

  /** `located`: the city source's cached record object, or null; `base`: the flag URL base in use */
  of(located: object | null, registeredCountry: object | null, asn: object | null, base: string): ConvertParts {
    if (base !== this.base) {
      // flag.img lives in the location part: a new base means new location texts
      this.base = base;
      this.locations = new WeakMap();
    }
    return { location: located ? tokenFor(this.locations, located) : this.none, network: this.network(registeredCountry, asn) };
  }

  private network(registeredCountry: object | null, asn: object | null): object {
    const first = registeredCountry ?? this.none;
    let byAsn = this.networks.get(first);
    if (!byAsn) this.networks.set(first, (byAsn = new WeakMap()));
    return tokenFor(byAsn, asn ?? this.none);
  }
}

function tokenFor(tokens: WeakMap<object, object>, source: object): object {
  let token = tokens.get(source);
  if (!token) tokens.set(source, (token = {}));
  return token;
}
