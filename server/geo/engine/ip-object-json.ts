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

/** what a location token's text is cut at: its own JSON escape cannot occur in real data */
const GAP = "\u0000time_now\u0000";
const GAP_JSON = JSON.stringify(GAP);

/** a part's text: before `time_now`'s value, and after it (null when the part has no time zone) */
export type PartText = NonNullable<PartToken["json"]>;

type City = NonNullable<NonNullable<NonNullable<IpObject["continent"]>["country"]>["city"]>;

export class IpObjectJson {
  stringify(result: ConvertResult): string {
    const data = result.data;
    if (!result.parts) return JSON.stringify(data);
    const location = locationText(result.parts.location, data);
    const timezone = data.continent?.country?.city?.timezone;
    const middle = location.tail === null ? location.head : location.head + JSON.stringify(timezone!.time_now) + location.tail;
    const time = data.completion_time;
    const completion = time ? `{"miliseconds":${time.miliseconds},"seconds":${time.seconds}}` : "null";
    return `{"ip":${JSON.stringify(data.ip)},"type":${JSON.stringify(data.type)},${middle},${networkText(result.parts.network, data).head},"completion_time":${completion}}`;
  }
}

/** the location part (`is_eu`, `continent`) of the result whose token this is, made once per token */
export function locationText(token: PartToken, data: IpObject): PartText {
  let text = token.json;
  if (text) return text;
  const city = data.continent?.country?.city as City | null | undefined;
  const timezone = city?.timezone;
  let json: string;
  if (timezone) {
    // the shared object is not touched: a copy of the path down to time_now carries the gap
    const continent = data.continent!;
    const country = continent.country!;
    const gapped = { ...continent, country: { ...country, city: { ...city!, timezone: { ...timezone, time_now: GAP } } } };
    json = JSON.stringify({ is_eu: data.is_eu, continent: gapped }).slice(1, -1);
    const at = json.indexOf(GAP_JSON);
    text = { head: json.slice(0, at), tail: json.slice(at + GAP_JSON.length) };
  } else {
    json = JSON.stringify({ is_eu: data.is_eu, continent: data.continent }).slice(1, -1);
    text = { head: json, tail: null };
  }
  token.json = text;
  return text;
}

/** the network part (`registered_country`, `asn`), made once per token; its `tail` is always null */
export function networkText(token: PartToken, data: IpObject): PartText {
  return (token.json ??= { head: JSON.stringify({ registered_country: data.registered_country, asn: data.asn }).slice(1, -1), tail: null });
}
