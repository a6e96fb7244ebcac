/**
 * What a serving process does for its data: warn once a day while it is stale, and, when
 * `--update-every` / IPATLAS_UPDATE_EVERY is on, check for new data on that schedule. Every
 * worker and every server sharing the data dir runs this; the state file says when the last check
 * was and the lock lets one of them do it, so the source sees one check per interval. The others
 * pick the new file up through their file watch.
 */
import type { GeoEngine } from "../types.js";
import type { GeoLogger } from "../logger.js";
import { StaleWarning } from "./freshness.js";
import { readState } from "./state.js";
import { updateData, type UpdateOptions } from "./updater.js";

export interface UpkeepOptions extends Omit<UpdateOptions, "log"> {
  engine: GeoEngine;
  log: GeoLogger;
  /** how often to look at the clock; the first look comes after min(this, the interval) */
  tickMs?: number;
}

const HOUR_MS = 3_600_000;
const FIRST_CHECK_MS = 5 * 60_000;

export interface Upkeep {
  /** one scheduled pass now: the stale check, and an update when one is due; resolves when done */
  tick(): Promise<void>;
  stop(): void;
}

export function startUpkeep(options: UpkeepOptions): Upkeep {
  const everyMs = options.settings.everyMs;
  const staleWarning = new StaleWarning({ databases: () => options.engine.databases(), maxAgeDays: options.settings.maxAgeDays, log: options.log });
  let running: Promise<void> | null = null;

  const due = (): boolean => {
    if (everyMs === null) return false;
    const state = readState(options.dataDir);
    if (!state.lastCheckAt) return true;
    const failed = Object.values(state.databases).some((db) => db?.lastError);
    // a failed check is tried again within the hour, not a whole interval later
    const wait = failed ? Math.min(everyMs, HOUR_MS) : everyMs;
    return Date.now() - Date.parse(state.lastCheckAt) >= wait;
  };

  const tick = () =>
    (running ??= (async () => {
      try {
        if (due()) await updateData({ ...options, log: options.log });
      } catch (error) {
        options.log.error(`geo: scheduled data update failed: ${(error as Error).message}`);
      } finally {
        staleWarning.check();
        running = null;
      }
    })());

  const tickMs = options.tickMs ?? Math.min(everyMs ?? HOUR_MS, HOUR_MS);
  staleWarning.check();
  const first = setTimeout(() => void tick(), Math.min(tickMs, FIRST_CHECK_MS));
  const timer = setInterval(() => void tick(), tickMs);
  first.unref();
  timer.unref();
  return {
    tick,
    stop() {
      clearTimeout(first);
      clearInterval(timer);
    },
  };
}
