/**
 * A configured MaxMind file (IPATLAS_CITY_DB / IPATLAS_ASN_DB) that follows replacement on disk.
 * The file is polled by stat on a timer (that survives replace-by-rename, which inotify watches
 * lose, and behaved more predictably here than fs.watchFile); a changed file is read whole, checked, and swapped in with one assignment, so a lookup sees the
 * old reader or the new one, never a mix. A file that fails the check is refused with a logged
 * error and the previous data keeps serving.
 */
import { statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import type { Reader, Response } from "maxmind";
import type { ParsedIp } from "../../../lib/ip/index.js";
import { readWholeFileSync } from "./whole-files.js";
import { openCheckedMmdb, openCheckedMmdbInSlices, type CheckedMmdb, type MmdbRole } from "./mmdb-check.js";
import type { GeoLogger } from "../logger.js";
import type { MmdbTree } from "./mmdb-tree.js";
import type { RecordCache } from "./record-cache.js";

interface Loaded<T extends object, V extends object> {
  reader: Reader<Response>;
  /** the walk from address bytes (every record size mmdb-lib opens) */
  tree: MmdbTree;
  cache: RecordCache<T, V>;
}

/** `T`: the file's records as decoded; `V`: what the source answers for one (a city's Located, an Asn) */
export class WatchedMmdb<T extends object, V extends object> {
  private current: Loaded<T, V> | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** identity of the file last seen on disk: inode, size, mtime; "missing" when absent */
  private seen = "";
  private reloading = false;

  constructor(
    readonly path: string,
    readonly role: MmdbRole,
    private readonly log: GeoLogger,
    /** a missing file is normal (the updater's file before its first download): no error for it */
    private readonly optional: boolean,
    /** a record cache for each file loaded: offsets mean nothing in the next file */
    private readonly newCache: () => RecordCache<T, V>,
    /** called each time a good file has been swapped in */
    private readonly onLoaded?: () => void,
  ) {}

  /** true once a good file serves */
  get loaded(): boolean {
    return this.current !== null;
  }

  /** the loaded file's database type ("GeoLite2-City", "DBIP-City-Lite (compat=City)"), or null */
  databaseType(): string | null {
    return this.current?.reader.metadata.databaseType ?? null;
  }

  /** Loads the file now (a failure is logged, lookups then fail) and starts following it. */
  start(intervalMs: number): void {
    this.seen = this.fileIdentity();
    this.load("loaded");
    this.timer = setInterval(this.check, intervalMs);
    this.timer.unref(); // never keeps the process alive on its own
  }

  /** What the address's record converts to (cached), or null; throws when no good file has been loaded yet. */
  lookup(parsed: ParsedIp): V | null {
    const current = this.current;
    if (!current) throw new Error(`${this.role} database ${this.path} is not loaded`);
    const record = current.tree.lookup(parsed.lookupVersion === 4 ? (parsed.lookup as { octets: number[] }).octets : parsed.lookup.toByteArray()) as T | null;
    return record ? current.cache.of(record) : null;
  }

  /** ISO date of the loaded data's build, from the file's metadata. */
  buildDate(): string | null {
    const epoch = this.current?.reader.metadata.buildEpoch;
    return epoch ? epoch.toISOString() : null;
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private check = (): void => {
    // one reload at a time; a file changed again meanwhile is seen at the next look
    if (this.reloading) return;
    const identity = this.fileIdentity();
    if (identity === this.seen) return;
    this.seen = identity;
    if (identity === "missing") {
      this.log.warn(`geo: ${this.role} database ${this.path} was removed; still serving the data loaded before`);
      return;
    }
    this.reloading = true;
    void this.reload().finally(() => (this.reloading = false));
  };

  private fileIdentity(): string {
    try {
      const stats = statSync(this.path);
      return `${stats.ino}:${stats.size}:${stats.mtimeMs}`;
    } catch {
      return "missing";
    }
  }

  /** At start: read and checked at once, before anything is served. */
  private load(verb: string): void {
    if (this.optional && this.seen === "missing") return;
    try {
      const buffer = readWholeFileSync(this.path);
      const cache = this.newCache();
      this.swapIn(openCheckedMmdb(buffer, this.role, cache), cache, verb);
    } catch (error) {
      this.refuse(error as Error);
    }
  }

  /**
   * While serving: read off the event loop and checked in slices, so that requests meanwhile
   * wait a slice at most, not the whole file (docs/data.md "Hot reload").
   */
  private async reload(): Promise<void> {
    try {
      const buffer = await readFile(this.path);
      const cache = this.newCache();
      const checked = await openCheckedMmdbInSlices(buffer, this.role, cache);
      if (this.timer !== null) this.swapIn(checked, cache, "reloaded");
    } catch (error) {
      this.refuse(error as Error);
    }
  }

  private swapIn({ reader, tree }: CheckedMmdb, cache: RecordCache<T, V>, verb: string): void {
    this.current = { reader, tree, cache };
    this.log.info(`geo: ${verb} ${this.role} database ${this.path} (${reader.metadata.databaseType}, built ${this.buildDate()})`);
    this.onLoaded?.();
  }

  private refuse(error: Error): void {
    const keeping = this.current
      ? "still serving the previous data"
      : this.optional
        ? "the bundled data answers until a good file is in place"
        : "lookups fail until a good file is in place";
    this.log.error(`geo: refused ${this.role} database ${this.path}: ${error.message}; ${keeping}`);
  }
}
