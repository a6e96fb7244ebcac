/** What the rest of the server needs from the geolocation engine (issue #2 builds it). */
import type { IpObject } from "../../lib/schemas/ip-object.js";
import type { ConversionStatus } from "../../lib/schemas/api.js";
import type { JsonBytes } from "../json-bytes.js";

export interface ConvertResult {
  status: ConversionStatus;
  /**
   * Full Ip object (docs/api.md#the-ip-object); for `invalid-ip-address` only `ip` is set, for
   * `failed` `ip` and `type`. A located address's is built when first read (engine/located-result.ts).
   */
  readonly data: IpObject;
  /** present on successful lookups of public addresses; see ConvertParts */
  parts?: ConvertParts;
  /** present with `parts`: what `data` holds that varies per address, read without building it */
  address?: AddressFields;
}

/** The per-address values of a located Ip object; the rest is its parts'. */
export interface AddressFields {
  ip: string;
  type: NonNullable<IpObject["type"]>;
  /**
   * The local time in the city's zone, when the city record names one. It is the Ip object's
   * `continent.country.city.timezone.time_now` only where the location part has a time zone (its
   * text has a `tail`): writers read it there alone.
   */
  timeNow: string | null;
  /** completion_time in whole microseconds (engine/build-ip-object.ts completionTime makes the object) */
  completionUs: number;
}

/**
 * Identity tokens: two results with the same `location` token have equal `is_eu` and `continent`
 * (all but `timezone.time_now`); two with the same `network` token have equal
 * `registered_country` and `asn`. A different token says nothing: the parts may still be equal.
 */
export interface ConvertParts {
  location: PartToken;
  network: PartToken;
}

/**
 * One part's identity. What is made from a part once is kept on its token, so it lives exactly as
 * long as the token does. Fields, not WeakMaps keyed by tokens: every WeakMap entry is an
 * ephemeron, and with the record caches full V8's full collections spent most of their 20-70 ms
 * pauses on them under random-address load (4-12 ms pauses without; `--trace-gc-nvp`).
 */
export interface PartToken {
  /**
   * the part's JSON text (engine/ip-object-json.ts): `whole` is the part as an object with
   * `time_now` null, how storage keeps it; `head` and `tail` are cut from it, before and after
   * `time_now`'s value (tail null: no time zone)
   */
  json: { head: string; tail: string | null; whole: string } | undefined;
  /** the part as storage keeps it (storage/record-codec.ts), of storage's own type */
  stored: unknown;
}

export interface GeoDatabaseInfo {
  /** e.g. "city", "asn", "registered-country" */
  name: string;
  /** "bundled", "maxmind" or "dbip" (a MaxMind-format file, configured or downloaded, by its publisher) */
  kind: string;
  /** file path or npm package@version */
  source: string;
  /** ISO date the data was built, when known */
  buildDate: string | null;
}

export interface GeoEngine {
  /**
   * Converts one address. Synchronous and pure apart from the clock: `now` is the instant used
   * for `timezone.time_now`, so the caller can store the same instant as `startedAt`.
   * Never throws: a broken lookup comes back as status `failed`. `lang`: the canonical language
   * tag of the names (geo/lang); null or omitted: English.
   */
  convert(input: string, now: Date, lang?: string | null): ConvertResult;
  /** `JSON.stringify(result.data)` of one of this engine's results, from cached fragments */
  toJson(result: ConvertResult): string;
  /** the same text as `toJson`, written as UTF-8 bytes (engine/ip-object-json.ts, ../json-bytes.ts) */
  writeJson(result: ConvertResult, out: JsonBytes): void;
  databases(): GeoDatabaseInfo[];
  /**
   * Runs lookups over the whole address space for at most `budgetMs` (default 100), so the first
   * requests after start do not pay for compiling and filling the record caches.
   */
  warmUp(budgetMs?: number): void;
  close(): Promise<void>;
}
