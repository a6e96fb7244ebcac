/**
 * Compact records (issue #3): a conversion's Ip object is split into parts that repeat across
 * rows (the location and the network, each stored once in its own table, addressed by a hash of
 * its JSON) and the few values that differ per row (ip, time_now as an offset, completion time).
 * Both backends use this one codec. Whatever the compact form cannot reproduce exactly goes into
 * `extra`, so stored data never changes.
 */
import { hash } from "node:crypto";
import type { IpObject } from "../../lib/schemas/ip-object.js";
import type { ConversionStatus } from "../../lib/schemas/api.js";
import type { ConvertResult, PartToken } from "../geo/types.js";
import type { NewConversion } from "./types.js";
import { foldAscii, ipToKey, IpKeyBlock, keyType } from "./ip-bytes.js";
import { ipObjectText, locationPartText, locationText, networkPartText, networkText, type PartText } from "../geo/engine/ip-object-json.js";
import { completionTime } from "../geo/engine/build-ip-object.js";
import { TimeSlice } from "../time-slice.js";

/** A deduplicated part: stored once per distinct JSON text. */
export interface Dimension {
  /**
   * The first 16 bytes of the SHA-256 of `json`, in hex: the hash the database keys the part by
   * (its `hash` column, those bytes), and the key of the maps of ids already written
   */
  key: string;
  json: string;
  /**
   * The part's row id in the one storage that saved it last (`savedIn`, that storage's own
   * marker): the rows that share the part then find its id without a map lookup each.
   */
  savedIn: object | undefined;
  savedId: number;
}

/** what saving a part takes of it (Dialect.saveDimensions), all that crosses to SQLite's writer thread */
export type SavedPart = Pick<Dimension, "key" | "json">;

export interface EncodedRecord {
  /**
   * the ip text folded to lower case (ASCII), what prefix search compares. With a key it is the
   * canonical text of that address (the engine stores nothing else), which prefix search on
   * ip_key ranges relies on (ip-prefix.ts).
   */
  ip: string | null;
  /** version byte + address bytes; also encodes `type` */
  ipKey: Uint8Array | null;
  location: Dimension;
  network: Dimension;
  /** time_now's UTC offset in minutes; null when time_now is null */
  tzOffset: number | null;
  /** seconds between time_now and the whole second of startedAt (normally 0) */
  timeShift: number;
  /** completion_time in whole microseconds (both fields derive from it); null when not derivable */
  completionUs: number | null;
  /** JSON of what the compact columns cannot reproduce; null for almost every row */
  extra: string | null;
}

/** What `extra` may hold: the ip text when not lower case, an exact time_now, completion_time, or as a last resort the whole object. */
interface Extra {
  i?: string;
  t?: string | null;
  c?: IpObject["completion_time"];
  d?: IpObject;
}

/** The per-row columns as read back, with the two dimension JSON texts joined in. */
export interface StoredColumns {
  ip: string | null;
  ipKey: Uint8Array | null;
  locationJson: string | null;
  networkJson: string | null;
  tzOffset: number | null;
  timeShift: number;
  completionUs: number | null;
  extra: string | null;
}

export const STATUS_CODES: Record<ConversionStatus, number> = {
  success: 0,
  failed: 1,
  "invalid-ip-address": 2,
};
const STATUS_BY_CODE: ConversionStatus[] = ["success", "failed", "invalid-ip-address"];

export function statusFromCode(code: number): ConversionStatus {
  const status = STATUS_BY_CODE[code];
  if (!status) throw new Error(`unknown stored status code ${code}`);
  return status;
}

/**
 * Rows without part tokens (invalid, private and failed conversions, rows made from an Ip object)
 * repeat a few texts, mostly the empty parts: their digests are remembered, bounded. A token keeps
 * its own part (dimensionByToken), so its text does not come here: a map of every new token's text
 * would keep ~50 MB of them alive under bulks of new addresses (docs/performance.md), to save one
 * digest per new token.
 */
const knownDimensions = new Map<string, Dimension>();
const KNOWN_DIMENSIONS_MAX = 1_000;

export function dimension(value: unknown): Dimension {
  const json = JSON.stringify(value);
  let dim = knownDimensions.get(json);
  if (!dim) {
    if (knownDimensions.size >= KNOWN_DIMENSIONS_MAX) knownDimensions.clear();
    knownDimensions.set(json, (dim = dimensionOfJson(json)));
  }
  return dim;
}

/**
 * A part from its JSON text, keyed by the first 16 bytes of its SHA-256. In hex, not as a Buffer:
 * Node's `"buffer"` output cost ~0.7 µs more a digest than `"hex"`, for the ~1600 parts a random
 * 5000-address bulk meets first, and each Buffer had an ArrayBuffer of its own
 * (docs/performance.md, "2026-11-30, late evening").
 */
function dimensionOfJson(json: string): Dimension {
  return { key: hash("sha256", json, "hex").slice(0, PART_HASH_HEX), json, savedIn: undefined, savedId: 0 };
}

/** hex digits of a part's hash: its 16 bytes */
const PART_HASH_HEX = 32;

/**
 * The engine's identity tokens (ConvertParts in ../geo/types.ts) spare the JSON text of a part
 * seen before: most rows of a bulk request share their location and network with earlier ones. A
 * new part's stored text is the answer's text of it (ip-object-json.ts) with `time_now` null, so
 * the part is serialised once for the answer and the row.
 */
function dimensionByToken(token: PartToken, text: (token: PartToken, result: ConvertResult) => PartText, conversion: ConvertResult): Dimension {
  if (token.stored) return token.stored as Dimension;
  return (token.stored = dimensionOfJson(text(token, conversion).whole));
}

const TIME_NOW = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})([+-])(\d{2}):(\d{2})$/;

/**
 * time_now as an offset and a shift from startedAt, or null when that would not give the same
 * text back. The encoding depends on startedAt's whole second only (formatTimeNow), and the rows
 * of that second (a bulk, or the GETs of that second) repeat a few texts: those are kept.
 */
const encodedTimes = new Map<string, { tzOffset: number; timeShift: number } | null>();
let encodedTimesSecond = NaN;

function encodeTimeNow(timeNow: string, startedAt: number): { tzOffset: number; timeShift: number } | null {
  const second = Math.floor(startedAt / 1000);
  if (second !== encodedTimesSecond || encodedTimes.size > 1000) {
    encodedTimes.clear();
    encodedTimesSecond = second;
  }
  let time = encodedTimes.get(timeNow);
  if (time !== undefined) return time;
  time = null;
  const parsed = TIME_NOW.exec(timeNow);
  if (parsed) {
    const offset = (parsed[2] === "-" ? -1 : 1) * (Number(parsed[3]) * 60 + Number(parsed[4]));
    const instant = Date.parse(`${parsed[1]}Z`) / 1000 - offset * 60;
    const candidate = { tzOffset: offset, timeShift: instant - Math.floor(startedAt / 1000) };
    if (formatTimeNow(candidate, startedAt) === timeNow) time = candidate;
  }
  encodedTimes.set(timeNow, time);
  return time;
}

/** what a row is encoded from: a new conversion, the engine's `address` and `parts` when it gave them */
type RecordSource = Pick<NewConversion, "status" | "data" | "startedAt" | "parts" | "address">;

/**
 * The location and network parts are stored as their own JSON text, so they come back as the API
 * would serialise them. The per-row values are derived (type from the ip key, time_now from
 * startedAt and an offset, seconds from miliseconds), so each derivation is checked here and
 * falls back to `extra` when it would not reproduce the value exactly. A located conversion's
 * values are read from `address`: its Ip object is read only for a part seen the first time.
 */
export function encodeRecord(conversion: RecordSource, keys?: IpKeyBlock): EncodedRecord {
  const { parts, address } = conversion;
  if (parts && address) {
    const location = dimensionByToken(parts.location, locationText, conversion);
    const network = dimensionByToken(parts.network, networkText, conversion);
    const timeNow = locationText(parts.location, conversion).tail === null ? null : address.timeNow;
    return encodeValues(address.ip, address.type, timeNow, address.completionUs, location, network, conversion, keys);
  }
  const data = conversion.data;
  const location = parts
    ? dimensionByToken(parts.location, locationText, conversion)
    : dimension({ is_eu: data.is_eu, continent: withoutTimeNow(data.continent) });
  const network = parts ? dimensionByToken(parts.network, networkText, conversion) : dimension({ registered_country: data.registered_country, asn: data.asn });
  const timeNow = data.continent?.country?.city?.timezone?.time_now ?? null;
  return encodeValues(data.ip, data.type, timeNow, data.completion_time, location, network, conversion, keys);
}

function encodeValues(
  ip: IpObject["ip"],
  type: IpObject["type"],
  timeNow: string | null,
  /** the Ip object's, or the engine's microseconds (which completion_time is made from: exact by construction) */
  completion: IpObject["completion_time"] | number,
  location: Dimension,
  network: Dimension,
  conversion: RecordSource,
  keys: IpKeyBlock | undefined,
): EncodedRecord {
  const record: EncodedRecord = {
    ip: ip === null ? null : foldAscii(ip),
    ipKey: null,
    location,
    network,
    tzOffset: null,
    timeShift: 0,
    completionUs: null,
    extra: null,
  };
  if (type !== null) {
    record.ipKey = ip === null ? null : ipToKey(ip, type, keys);
    // An ip whose type does not parse (not produced by the engine): keep the object whole.
    if (record.ipKey === null) return { ...record, extra: JSON.stringify({ d: conversion.data } satisfies Extra) };
  }
  // Made only for a row that needs it: most rows have no extra, and a bulk encodes thousands.
  // Canonical addresses are lower case already; only invalid input can differ.
  let extra: Extra | null = ip !== null && record.ip !== ip ? { i: ip } : null;

  if (timeNow !== null) {
    const time = encodeTimeNow(timeNow, conversion.startedAt);
    if (time) {
      record.tzOffset = time.tzOffset;
      record.timeShift = time.timeShift;
    } else {
      (extra ??= {}).t = timeNow;
    }
  }

  if (typeof completion === "number") {
    record.completionUs = completion;
  } else if (completion) {
    // The engine measures to the microsecond (server/geo/engine/build-ip-object.ts completionTime).
    const us = typeof completion.miliseconds === "number" ? Math.round(completion.miliseconds * 1000) : null;
    if (us !== null && derivesExactly(completion, us)) record.completionUs = us;
    else (extra ??= {}).c = completion;
  }

  record.extra = extra ? JSON.stringify(extra) : null;
  return record;
}

/** whether completionFrom(us) gives `completion` back: the same two members, the same values */
function derivesExactly(completion: NonNullable<IpObject["completion_time"]>, us: number): boolean {
  if (!Number.isSafeInteger(us)) return false;
  const derived = completionTime(us);
  if (completion.miliseconds !== derived.miliseconds || completion.seconds !== derived.seconds) return false;
  let members = 0;
  for (const key in completion) if (Object.hasOwn(completion, key)) members++;
  return members === 2;
}

/**
 * encodeRecord for a whole batch, in time slices (TimeSlice): a 5000-row bulk would otherwise hold
 * the event loop for the time of all of them, and every other request with it.
 */
export async function encodeConversions(conversions: readonly NewConversion[]): Promise<EncodedRecord[]> {
  const records: EncodedRecord[] = new Array(conversions.length);
  // a block pays where keys share it; a GET's one key is an array of its own, as without one
  const keys = conversions.length > 1 ? new IpKeyBlock(conversions.length) : undefined;
  const slice = new TimeSlice();
  await slice.begin(conversions.length);
  for (let i = 0; i < conversions.length; i++) {
    if (slice.due()) await slice.pause();
    records[i] = encodeRecord(conversions[i]!, keys);
  }
  return records;
}

export function decodeRecord(row: StoredColumns, startedAt: number): IpObject {
  const extra: Extra = row.extra === null ? {} : JSON.parse(row.extra);
  if (extra.d) return extra.d;
  const location = row.locationJson === null ? { is_eu: null, continent: null } : JSON.parse(row.locationJson);
  const network = row.networkJson === null ? { registered_country: null, asn: null } : JSON.parse(row.networkJson);
  const timezone = location.continent?.country?.city?.timezone;
  if (timezone) timezone.time_now = "t" in extra ? extra.t : formatTimeNow(row, startedAt);
  return {
    ip: extra.i ?? row.ip,
    type: row.ipKey === null ? null : keyType(row.ipKey),
    is_eu: location.is_eu,
    continent: location.continent,
    registered_country: network.registered_country,
    asn: network.asn,
    completion_time: "c" in extra ? extra.c! : completionFrom(row.completionUs),
  };
}

/**
 * `JSON.stringify(decodeRecord(row, startedAt))`, made without the object tree: reads answered as
 * text (the conversion routes) spend most of a page on decoding the parts' JSON and serialising
 * it again. Each distinct location and network text is parsed and cut once (kept per text, up to
 * PART_TEXTS_MAX each); per row only the ip, time_now and completion_time are written in. A row
 * with `extra` takes decodeRecord's way.
 */
export function recordJson(row: StoredColumns, startedAt: number): string {
  if (row.extra !== null) return JSON.stringify(decodeRecord(row, startedAt));
  const location = storedLocation(row.locationJson).text;
  const timeNow = location.tail === null ? null : formatTimeNow(row, startedAt);
  const type = row.ipKey === null ? null : keyType(row.ipKey);
  return ipObjectText(row.ip, type, location, timeNow, storedNetwork(row.networkJson).text, completionFrom(row.completionUs));
}

export type LocationPart = Pick<IpObject, "is_eu" | "continent">;
export type NetworkPart = Pick<IpObject, "registered_country" | "asn">;

/** What a few fields of a stored row are read from (recordParts): its ip, its location and its network. */
export interface RecordParts {
  ip: string | null;
  /** its time_now is not the row's (it differs per row): read the fields that do not */
  location: LocationPart;
  network: NetworkPart;
}

/**
 * The row's ip and parts for reading a few fields (a country, a city, an ASN), without an Ip
 * object per row: the dashboard's exports and filters read a million rows this way, where
 * decodeRecord cost ~30 µs a row and most of the collections. The parts are the ones kept per
 * text for recordJson, shared by every row with that text and frozen: read them, never change them.
 */
export function recordParts(row: StoredColumns, startedAt: number): RecordParts {
  if (row.extra !== null) return ipObjectParts(decodeRecord(row, startedAt));
  return { ip: row.ip, location: storedLocation(row.locationJson).value, network: storedNetwork(row.networkJson).value };
}

/** the parts of a whole Ip object: the object itself, read through the parts' fields */
export function ipObjectParts(data: IpObject): RecordParts {
  return { ip: data.ip, location: data, network: data };
}

const PART_TEXTS_MAX = 5_000;

/** a stored part's parsed value (frozen, shared) and its text cut for recordJson */
interface KeptPart<P, T> {
  value: P;
  text: T;
}
const storedLocations = new Map<string, KeptPart<LocationPart, PartText>>();
const storedNetworks = new Map<string, KeptPart<NetworkPart, string>>();
const NO_LOCATION: KeptPart<LocationPart, PartText> = {
  value: Object.freeze({ is_eu: null, continent: null }),
  text: { head: '"is_eu":null,"continent":null', tail: null, whole: '{"is_eu":null,"continent":null}' },
};
const NO_NETWORK: KeptPart<NetworkPart, string> = {
  value: Object.freeze({ registered_country: null, asn: null }),
  text: '"registered_country":null,"asn":null',
};

function storedLocation(json: string | null): KeptPart<LocationPart, PartText> {
  return json === null ? NO_LOCATION : keptPart(storedLocations, json, (location: LocationPart) => locationPartText(location.is_eu, location.continent));
}

function storedNetwork(json: string | null): KeptPart<NetworkPart, string> {
  return json === null ? NO_NETWORK : keptPart(storedNetworks, json, (network: NetworkPart) => networkPartText(network.registered_country, network.asn).head);
}

/** a stored part's text parsed and cut once while `parts` keeps it */
function keptPart<P extends object, T>(parts: Map<string, KeptPart<P, T>>, json: string, cut: (part: P) => T): KeptPart<P, T> {
  let part = parts.get(json);
  if (part === undefined) {
    const value = deepFreeze(JSON.parse(json) as P);
    part = { value, text: cut(value) };
    if (parts.size >= PART_TEXTS_MAX) parts.clear();
    parts.set(json, part);
  }
  return part;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

function withoutTimeNow(continent: IpObject["continent"]): IpObject["continent"] {
  const country = continent?.country;
  const city = country?.city;
  const timezone = city?.timezone;
  if (!continent || !country || !city || !timezone) return continent;
  return { ...continent, country: { ...country, city: { ...city, timezone: { ...timezone, time_now: null } } } };
}

function formatTimeNow(row: { tzOffset: number | null; timeShift: number }, startedAt: number): string | null {
  if (row.tzOffset === null) return null;
  const seconds = Math.floor(startedAt / 1000) + row.timeShift + row.tzOffset * 60;
  const local = new Date(seconds * 1000).toISOString().slice(0, 19);
  const abs = Math.abs(row.tzOffset);
  const sign = row.tzOffset < 0 ? "-" : "+";
  return `${local}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

function completionFrom(us: number | null): IpObject["completion_time"] {
  return us === null || !Number.isSafeInteger(us) ? null : completionTime(us);
}

function pad(n: number): string {
  return String(n).padStart(2, "0");
}
