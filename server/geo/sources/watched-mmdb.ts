/**
 * A configured MaxMind file (IPATLAS_CITY_DB / IPATLAS_ASN_DB) that follows replacement on disk.
 * The file is polled by stat on a timer (that survives replace-by-rename, which inotify watches
 * lose, and behaved more predictably here than fs.watchFile); a changed file is read whole, checked, and swapped in with one assignment, so a lookup sees the
 * old reader or the new one, never a mix. A file that fails the check is refused with a logged
 * error and the previous data keeps serving.
 */
import { readFileSync, statSync } from "node:fs";
import type { Reader, Response } from "maxmind";
import { openCheckedMmdb, type MmdbRole } from "./mmdb-check.js";
import type { GeoLogger } from "../logger.js";

export class WatchedMmdb<T> {
  private current: Reader<Response> | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** identity of the file last seen on disk: inode, size, mtime; "missing" when absent */
  private seen = "";

  constructor(
    readonly path: string,
    readonly role: MmdbRole,
    private readonly log: GeoLogger,
  ) {}

  /** Loads the file now (a failure is logged, lookups then fail) and starts following it. */
  start(intervalMs: number): void {
    this.seen = this.fileIdentity();
    this.load("loaded");
    this.timer = setInterval(this.check, intervalMs);
    this.timer.unref(); // never keeps the process alive on its own
  }

  /** The record of an address, or null; throws when no good file has been loaded yet. */
  get(ip: string): T | null {
    if (!this.current) throw new Error(`${this.role} database ${this.path} is not loaded`);
    return this.current.get(ip) as T | null;
  }

  /** ISO date of the loaded data's build, from the file's metadata. */
  buildDate(): string | null {
    const epoch = this.current?.metadata.buildEpoch;
    return epoch ? epoch.toISOString() : null;
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private check = (): void => {
    const identity = this.fileIdentity();
    if (identity === this.seen) return;
    this.seen = identity;
    if (identity === "missing") {
      this.log.warn(`geo: ${this.role} database ${this.path} was removed; still serving the data loaded before`);
      return;
    }
    this.load("reloaded");
  };

  private fileIdentity(): string {
    try {
      const stats = statSync(this.path);
      return `${stats.ino}:${stats.size}:${stats.mtimeMs}`;
    } catch {
      return "missing";
    }
  }

  private load(verb: string): void {
    try {
      const reader = openCheckedMmdb(readFileSync(this.path), this.role);
      this.current = reader;
      this.log.info(`geo: ${verb} ${this.role} database ${this.path} (${reader.metadata.databaseType}, built ${this.buildDate()})`);
    } catch (error) {
      const keeping = this.current ? "still serving the previous data" : "lookups fail until a good file is in place";
      this.log.error(`geo: refused ${this.role} database ${this.path}: ${(error as Error).message}; ${keeping}`);
    }
  }
}
