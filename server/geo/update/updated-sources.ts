/**
 * The updater's files in the data dir, in front of the bundled data: once `ipatlas data update`
 * (or the schedule) has put a good file in place, it answers, followed on disk like a configured
 * MaxMind file; until then the bundled data answers (a file removed later leaves the data it
 * loaded serving). Downloaded files are MaxMind-format (DB-IP Lite or GeoLite2/GeoIP2).
 */
import type { ParsedIp } from "../../../lib/ip/index.js";
import type { GeoDatabaseInfo } from "../types.js";
import type { GeoLogger } from "../logger.js";
import type { Located, MaxMindCityRecord } from "../sources/located.js";
import { WatchedMmdb } from "../sources/watched-mmdb.js";
import { maxMindAsnCache, maxMindCityCache, type Asn, type AsnSource, type CitySource, type MaxMindAsnRecord } from "../sources/lookups.js";

/** "dbip" for DB-IP's files, "maxmind" for MaxMind's: the attribution differs (engine/credits.ts). */
function kindOf(databaseType: string | null): string {
  return databaseType && /dbip|db-ip/i.test(databaseType) ? "dbip" : "maxmind";
}

export class UpdatedOrBundledCity implements CitySource {
  /** DB-IP's records carry no registered country: the engine takes it from the record when there, else bundled */
  readonly hasRegisteredCountry = false;
  private readonly file: WatchedMmdb<MaxMindCityRecord, Located>;
  /**
   * The bundled data, while no file has loaded. Once one has, it serves for good (a file removed
   * or refused later leaves the loaded data serving), so the bundled data is let go: a server
   * started without a downloaded file gives its 130 MB back once its first update is in place.
   */
  private bundled: CitySource | null = null;

  private constructor(path: string, log: GeoLogger) {
    // the same record cache as a configured MaxMind file: stable objects per record, few decodes
    this.file = new WatchedMmdb(path, "city", log, true, maxMindCityCache, () => this.letBundledGo());
  }

  /**
   * The file at `path` when it loads now, else the bundled data (`openBundled`) until one does. A
   * server started with a downloaded file neither reads nor holds the bundled files (0.5-0.8 s of
   * its start here). The file is loaded before this returns its promise; the bundled data, when
   * needed, after (BundledCity.open reads on the thread pool).
   */
  static async open(path: string, openBundled: () => Promise<CitySource>, log: GeoLogger, reloadIntervalMs: number): Promise<UpdatedOrBundledCity> {
    const city = new UpdatedOrBundledCity(path, log);
    city.file.start(reloadIntervalMs);
    if (!city.file.loaded) {
      const bundled = await openBundled();
      // a file may have loaded while the bundled data was read: then it goes at once
      if (!city.file.loaded) city.bundled = bundled;
      else bundled.close();
    }
    return city;
  }

  lookup(parsed: ParsedIp): Located | null {
    if (!this.file.loaded) return this.bundled!.lookup(parsed);
    return this.file.lookup(parsed);
  }

  databases(): GeoDatabaseInfo[] {
    if (!this.file.loaded) return this.bundled!.databases();
    const kind = kindOf(this.file.databaseType());
    const city = { name: "city", kind, source: this.file.path, buildDate: this.file.buildDate() };
    // MaxMind City records carry the registered country; DB-IP's do not (the bundled data answers it)
    return kind === "maxmind" ? [city, { ...city, name: "registered-country" }] : [city];
  }

  close(): void {
    this.file.close();
    this.letBundledGo();
  }

  private letBundledGo(): void {
    this.bundled?.close();
    this.bundled = null;
  }
}

export class UpdatedOrBundledAsn implements AsnSource {
  private readonly file: WatchedMmdb<MaxMindAsnRecord, Asn>;

  constructor(
    path: string,
    private readonly bundled: AsnSource,
    log: GeoLogger,
    reloadIntervalMs: number,
  ) {
    this.file = new WatchedMmdb(path, "asn", log, true, maxMindAsnCache);
    this.file.start(reloadIntervalMs);
  }

  lookup(parsed: ParsedIp): Asn | null {
    if (!this.file.loaded) return this.bundled.lookup(parsed);
    return this.file.lookup(parsed);
  }

  databases(): GeoDatabaseInfo[] {
    if (!this.file.loaded) return this.bundled.databases();
    return [{ name: "asn", kind: kindOf(this.file.databaseType()), source: this.file.path, buildDate: this.file.buildDate() }];
  }

  close(): void {
    this.file.close();
  }
}
