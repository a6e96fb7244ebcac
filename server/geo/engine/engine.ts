/**
 * The geolocation engine: one address in, the Ip object of docs/api.md#the-ip-object out.
 *
 * Defaults ship with the install (DB-IP City Lite, ip-location-db ASN and registered country);
 * IPATLAS_CITY_DB / IPATLAS_ASN_DB replace them with MaxMind files that are followed on disk.
 */
import { bareIpObject } from "../../../lib/schemas/ip-object.js";
import { isPublicAddress, parseIp } from "../../../lib/ip/index.js";
import type { ConvertResult, GeoDatabaseInfo, GeoEngine } from "../types.js";
import type { JsonBytes } from "../../json-bytes.js";
import type { GeoLogger } from "../logger.js";
import { completionMicros, completionTime } from "./build-ip-object.js";
import { LocatedResult } from "./located-result.js";
import { localTimeIso } from "../country/time-now.js";
import { loadBundledIndex } from "../sources/bundled-index.js";
import { BundledAsn, BundledCity, MaxMindAsn, MaxMindCity, UnavailableSource, type AsnSource, type CitySource } from "../sources/lookups.js";
import { hasFlagSvg } from "../country/flag-files.js";
import { PartTokens } from "./part-tokens.js";
import { IpObjectJson } from "./ip-object-json.js";
import { UpdatedOrBundledAsn, UpdatedOrBundledCity } from "../update/updated-sources.js";
import { downloadedPath } from "../update/paths.js";

export type { GeoLogger } from "../logger.js";

export interface GeoEngineOptions {
  /** GeoIP2 / GeoLite2 City .mmdb replacing the bundled city data (IPATLAS_CITY_DB) */
  cityDb?: string | null;
  /** GeoIP2 / GeoLite2 ASN .mmdb replacing the bundled ASN data (IPATLAS_ASN_DB) */
  asnDb?: string | null;
  /** where the compact index of the bundled CSV data is cached */
  dataDir: string;
  /** the server's public base URL, known only after listen: flag.img is `${publicBaseUrl()}/flags/gb.svg` */
  publicBaseUrl: () => string;
  logger?: GeoLogger;
  /** how often configured .mmdb files are checked for replacement */
  reloadIntervalMs?: number;
}

/** Inputs longer than this are cut in the Ip object of an invalid address (docs/api.md#the-ip-object). */
const INVALID_INPUT_MAX = 100;

export async function createGeoEngine(options: GeoEngineOptions): Promise<GeoEngine> {
  const log = options.logger ?? console;
  const reloadIntervalMs = options.reloadIntervalMs ?? 1000;

  // Without a configured file, the updater's file in the data dir answers once there is one, and
  // the bundled city data until then, its files read on the thread pool while the index opens.
  const cityOpening: CitySource | Promise<CitySource> = options.cityDb
    ? new MaxMindCity(options.cityDb, log, reloadIntervalMs)
    : UpdatedOrBundledCity.open(downloadedPath(options.dataDir, "city"), () => openOrUnavailable(() => BundledCity.open(), ["city"], log), log, reloadIntervalMs);
  // The bundled index is needed for ASN without IPATLAS_ASN_DB, and for the registered country
  // unless the MaxMind City file carries it.
  const openIndex = () => openOrUnavailable(() => new BundledAsn(loadBundledIndex(options.dataDir, log)), ["asn", "registered-country"], log);
  const indexOpening = options.asnDb ? null : openIndex();
  const city = await cityOpening;
  const bundled = (await indexOpening) ?? (city.hasRegisteredCountry ? null : await openIndex());
  const asn: AsnSource = options.asnDb
    ? new MaxMindAsn(options.asnDb, log, reloadIntervalMs)
    : new UpdatedOrBundledAsn(downloadedPath(options.dataDir, "asn"), bundled!, log, reloadIntervalMs);

  // Flag URLs per country code, made again only when the public base changes (set after listen).
  const flagUrls = new Map<string, string | null>();
  let flagBase = "";
  const flagUrl = (code: string) => {
    const base = options.publicBaseUrl();
    if (base !== flagBase) {
      flagUrls.clear();
      flagBase = base;
    }
    let url = flagUrls.get(code);
    if (url === undefined) {
      const lower = code.toLowerCase();
      url = hasFlagSvg(lower) ? `${base}/flags/${lower}.svg` : null;
      flagUrls.set(code, url);
    }
    return url;
  };

  const partTokens = new PartTokens();
  const json = new IpObjectJson();

  // A broken database fails every lookup; one log line per 10 s says so without flooding the log.
  let lastFailureLog = -Infinity;
  let failuresSinceLog = 0;
  const logFailure = (ip: string, error: unknown) => {
    failuresSinceLog++;
    if (performance.now() - lastFailureLog < 10_000) return;
    log.error(`geo: lookup of ${ip} failed (${failuresSinceLog} failed lookups since the last report): ${(error as Error).message}`);
    lastFailureLog = performance.now();
    failuresSinceLog = 0;
  };

  function convert(input: string, now: Date, lang: string | null = null): ConvertResult {
    const startedAt = performance.now();
    const parsed = typeof input === "string" ? parseIp(input) : null;
    if (!parsed) {
      return { status: "invalid-ip-address", data: bareIpObject(String(input).slice(0, INVALID_INPUT_MAX), null) };
    }
    if (!isPublicAddress(parsed.lookup)) {
      // Private, loopback, documentation, ...: no database knows them.
      const data = bareIpObject(parsed.ip, parsed.type);
      data.completion_time = completionTime(completionMicros(performance.now() - startedAt));
      return { status: "success", data };
    }
    try {
      const located = city.lookup(parsed);
      // a downloaded DB-IP record has no registered country, a downloaded MaxMind one has
      const registeredCountry = city.hasRegisteredCountry ? (located?.registeredCountry ?? null) : (located?.registeredCountry ?? bundled!.registeredCountry(parsed));
      const network = asn.lookup(parsed);
      const zone = located?.city?.timeZone;
      const timeNow = zone ? localTimeIso(zone, now) : null;
      const completionUs = completionMicros(performance.now() - startedAt);
      const parts = partTokens.of(located, registeredCountry, network, options.publicBaseUrl(), lang);
      return new LocatedResult(parts, { ip: parsed.ip, type: parsed.type, timeNow, completionUs }, { located, registeredCountry, asn: network }, flagUrl, lang);
    } catch (error) {
      logFailure(parsed.ip, error);
      return { status: "failed", data: bareIpObject(parsed.ip, parsed.type) };
    }
  }

  function databases(): GeoDatabaseInfo[] {
    const list = [...city.databases(), ...asn.databases()];
    // The registered country comes from the bundled data unless the MaxMind City file has it.
    if (!city.hasRegisteredCountry && !list.some((db) => db.name === "registered-country")) {
      list.push(...(bundled instanceof BundledAsn ? bundled.registeredCountryDatabases() : bundled!.databases().filter((db) => db.name === "registered-country")));
    }
    return list;
  }

  function warmUp(budgetMs = 100): void {
    const now = new Date();
    const until = performance.now() + budgetMs;
    // addresses spread over every /8, v4 and some v6: the hot code compiled, common records cached
    for (let i = 0; i < 2048 && performance.now() < until; i++) {
      const v4 = `${1 + (i % 223)}.${(i * 101) % 256}.${(i * 7) % 256}.${1 + (i % 254)}`;
      toJson(convert(v4, now));
      if (i % 8 === 0) toJson(convert(`2${(i % 16).toString(16)}0${i % 10}:${(i * 13).toString(16)}::1`, now));
    }
  }

  const toJson = (result: ConvertResult) => json.stringify(result);
  const writeJson = (result: ConvertResult, out: JsonBytes) => json.write(result, out);

  async function close(): Promise<void> {
    city.close();
    asn.close();
  }

  return { convert, toJson, writeJson, databases, warmUp, close };
}

/**
 * Opens a bundled source; if its files are missing or unreadable, logs why and fails its lookups.
 * What `open` does before its first wait runs at once: the bundled index is built while the city
 * files are read.
 */
async function openOrUnavailable<T>(open: () => T | Promise<T>, names: string[], log: GeoLogger): Promise<T | UnavailableSource> {
  try {
    return await open();
  } catch (error) {
    const reason = (error as Error).message;
    log.error(`geo: bundled ${names.join(" and ")} data could not be opened (${reason}); those lookups fail`);
    return new UnavailableSource(names, reason);
  }
}
