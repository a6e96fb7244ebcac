/**
 * How old each database is, and whether that is too old (`stale` past IPATLAS_DATA_MAX_AGE_DAYS,
 * default 45: a monthly source missed one update and a half). /healthz, `ipatlas data status` and
 * the dashboard show it; a serving process warns once a day while anything is stale.
 */
import type { GeoDatabaseInfo } from "../types.js";
import type { GeoLogger } from "../logger.js";

const DAY_MS = 86_400_000;

export interface DatabaseFreshness extends GeoDatabaseInfo {
  /** whole days since the build date; null when the build date is unknown */
  ageDays: number | null;
  stale: boolean;
}

export function withFreshness(databases: readonly GeoDatabaseInfo[], now: Date, maxAgeDays: number): DatabaseFreshness[] {
  return databases.map((db) => {
    const built = db.buildDate ? Date.parse(db.buildDate) : NaN;
    const ageDays = Number.isNaN(built) ? null : Math.max(0, Math.floor((now.getTime() - built) / DAY_MS));
    return { ...db, ageDays, stale: ageDays !== null && ageDays > maxAgeDays };
  });
}

export interface StaleWarningOptions {
  databases: () => GeoDatabaseInfo[];
  maxAgeDays: number;
  log: GeoLogger;
  now?: () => Date;
}

/** Logs one warning per day while a database is stale; `check` is called on a timer by the server. */
export class StaleWarning {
  private lastWarnedAt = -Infinity;
  constructor(private readonly options: StaleWarningOptions) {}

  /** Returns true when it logged. */
  check(): boolean {
    const now = (this.options.now ?? (() => new Date()))();
    const stale = withFreshness(this.options.databases(), now, this.options.maxAgeDays).filter((db) => db.stale);
    if (stale.length === 0) {
      this.lastWarnedAt = -Infinity; // warn at once should it go stale again
      return false;
    }
    if (now.getTime() - this.lastWarnedAt < DAY_MS) return false;
    this.lastWarnedAt = now.getTime();
    const list = stale.map((db) => `${db.name} (${db.source}, built ${db.buildDate!.slice(0, 10)}, ${db.ageDays} days old)`).join(", ");
    this.options.log.warn(`geo: stale data, older than ${this.options.maxAgeDays} days: ${list}; run \`ipatlas data update\` or see docs/data.md`);
    return true;
  }
}
