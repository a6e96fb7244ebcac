/**
 * The Ip object as JSON text, assembled from fragments cached per part token (part-tokens.ts)
 * instead of `JSON.stringify` of a fresh object per address: the location part (`is_eu`,
 * `continent`) is serialised once per location token with a gap where `time_now` goes, the
 * network part (`registered_country`, `asn`) once per network token. What varies per address
 * (`ip`, `type`, `time_now`, `completion_time`) is written in. The text equals
 * `JSON.stringify(result.data)`, key order included (ip-object-json.test.ts checks). Storage keeps
 * the same texts as its location and network rows (storage/record-codec.ts), so a new part is
 * serialised once for both.
 */
import type { IpObject } from "../../../lib/schemas/ip-object.js";
import type { ConvertResult, PartToken } from "../types.js";
import type { JsonBytes } from "../../json-bytes.js";
import { completionTime } from "./build-ip-object.js";

/** what a location token's text is cut at when `"time_now":null` is in it twice: its own JSON escape cannot occur in real data */
const GAP = "\u0000time_now\u0000";
const GAP_JSON = JSON.stringify(GAP);

/** a part's text: before `time_now`'s value, and after it (null when the part has no time zone), cut from the whole */
export type PartText = NonNullable<PartToken["json"]>;

type City = NonNullable<NonNullable<NonNullable<IpObject["continent"]>["country"]>["city"]>;

export class IpObjectJson {
  stringify(result: ConvertResult): string {
    const { parts, address } = result;
    if (!parts || !address) return JSON.stringify(result.data);
    return ipObjectText(address.ip, address.type, locationText(parts.location, result), address.timeNow, networkText(parts.network, result).head, completionTime(address.completionUs));
  }

  /**
   * The same text as `stringify`, as UTF-8 bytes (a bulk's answer, ../../convert/bulk-answer.ts):
   * writes what `ipObjectText` joins, piece by piece. The parts go in as the texts their tokens
   * keep; a UTF-8 copy kept on each token as well cost more memory than its encoding costs time
   * (docs/performance.md "2026-11-29, morning").
   */
  write(result: ConvertResult, out: JsonBytes): void {
    const { parts, address } = result;
    if (!parts || !address) return out.text(JSON.stringify(result.data));
    const location = locationText(parts.location, result);
    const network = networkText(parts.network, result);
    out.ascii('{"ip":');
    out.string(address.ip);
    out.ascii(',"type":');
    out.string(address.type);
    out.ascii(",");
    out.text(location.head);
    if (location.tail !== null) {
      out.stringOrNull(address.timeNow);
      out.text(location.tail);
    }
    out.ascii(",");
    out.text(network.head);
    // in pieces: a string of them per address would be garbage the moment it is copied
    const completion = completionTime(address.completionUs);
    out.ascii(',"completion_time":');
    out.ascii(COMPLETION_MS);
    out.ascii(String(completion.miliseconds));
    out.ascii(COMPLETION_SECONDS);
    out.ascii(String(completion.seconds));
    out.ascii("}}");
  }
}

/** completion_time's text around its two numbers, for both writers of it */
const COMPLETION_MS = '{"miliseconds":';
const COMPLETION_SECONDS = ',"seconds":';

function completionJson(completion: IpObject["completion_time"]): string {
  return completion ? `${COMPLETION_MS}${completion.miliseconds}${COMPLETION_SECONDS}${completion.seconds}}` : "null";
}

/**
 * The Ip object's text from its parts' texts and what varies per address; the one writer of it,
 * for answers (above) and for stored rows read back (storage/record-codec.ts recordJson).
 */
export function ipObjectText(
  ip: IpObject["ip"],
  type: IpObject["type"],
  location: PartText,
  timeNow: string | null,
  network: string,
  completion: IpObject["completion_time"],
): string {
  const middle = location.tail === null ? location.head : location.head + JSON.stringify(timeNow) + location.tail;
  return `{"ip":${JSON.stringify(ip)},"type":${JSON.stringify(type)},${middle},${network},"completion_time":${completionJson(completion)}}`;
}

/**
 * The location part (`is_eu`, `continent`) of the result whose token this is, made once per token:
 * only then is the result's Ip object read, and the other part's text is made from the same object
 * when it is new too (a located result builds its Ip object at each read: engine/located-result.ts).
 */
export function locationText(token: PartToken, result: ConvertResult): PartText {
  return token.json ?? newPartTexts(result, token);
}

/** the network part (`registered_country`, `asn`), made once per token; its `tail` is always null */
export function networkText(token: PartToken, result: ConvertResult): PartText {
  return token.json ?? newPartTexts(result, token);
}

/**
 * The texts of the result's parts that have none yet, from one read of its Ip object; `token` is
 * one of those parts (every caller passes `result.parts.location` or `.network`).
 */
function newPartTexts(result: ConvertResult, token: PartToken): PartText {
  const data = result.data;
  const parts = result.parts!;
  parts.location.json ??= locationPartText(data.is_eu, data.continent);
  parts.network.json ??= networkPartText(data.registered_country, data.asn);
  return token.json!;
}

/**
 * `"is_eu":…,"continent":…` cut where `time_now`'s value goes (tail null: no time zone). The
 * objects are not touched: a copy of the path down to time_now carries the gap. Stored
 * conversions are written back as text from the same cut (storage/record-codec.ts recordJson).
 */
export function locationPartText(isEu: IpObject["is_eu"], continent: IpObject["continent"]): PartText {
  const country = continent?.country;
  const city = country?.city as City | null | undefined;
  const timezone = city?.timezone;
  if (!timezone) return wholeText(JSON.stringify({ is_eu: isEu, continent }));
  // The stored text, made once: `"time_now":null` is where the value goes. An unescaped quote
  // only delimits a string, so each occurrence is a member named time_now, which only the time
  // zone has; should there be another, the gap says which one it is.
  let whole = JSON.stringify(withTimeNow(isEu, continent!, null));
  let at = whole.indexOf(TIME_NOW_NULL);
  if (whole.indexOf(TIME_NOW_NULL, at + 1) !== -1) {
    const gapped = JSON.stringify(withTimeNow(isEu, continent!, GAP));
    at = gapped.indexOf(GAP_JSON) - TIME_NOW_KEY.length;
    whole = gapped.slice(0, at) + TIME_NOW_NULL + gapped.slice(at + TIME_NOW_KEY.length + GAP_JSON.length);
  }
  // Head and tail are slices of the whole, not texts of their own: a kept token then holds its
  // text once (part tokens are kept for thousands of records: sources/record-cache.ts).
  const value = at + TIME_NOW_KEY.length;
  return { head: whole.slice(1, value), tail: whole.slice(value + NULL_LENGTH, -1), whole };
}

/**
 * The location part with `time_now` set, the path down to it copied. A function of its own, not a
 * closure in locationPartText: tsx names each closure bound to a name as it is made (`__name`),
 * which cost that function a sixth of its time (docs/performance.md "2026-11-30, afternoon").
 */
function withTimeNow(isEu: IpObject["is_eu"], continent: NonNullable<IpObject["continent"]>, timeNow: string | null) {
  const country = continent.country!;
  const city = country.city as City;
  return { is_eu: isEu, continent: { ...continent, country: { ...country, city: { ...city, timezone: { ...city.timezone!, time_now: timeNow } } } } };
}

const TIME_NOW_KEY = '"time_now":';
const TIME_NOW_NULL = `${TIME_NOW_KEY}null`;
const NULL_LENGTH = "null".length;

/** `"registered_country":…,"asn":…` */
export function networkPartText(registeredCountry: IpObject["registered_country"], asn: IpObject["asn"]): PartText {
  return wholeText(JSON.stringify({ registered_country: registeredCountry, asn }));
}

/** a part without a time zone: its object's members are its head */
function wholeText(whole: string): PartText {
  return { head: whole.slice(1, -1), tail: null, whole };
}
