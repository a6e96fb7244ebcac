/**
 * The data's state as /healthz, `ipatlas data status` and the dashboard show it: each database
 * with its source, build date, age and `stale`, and the updater's schedule and last check.
 */
import type { HealthResponse } from "../../../lib/schemas/api.js";
import type { GeoDatabaseInfo } from "../types.js";
import { withFreshness } from "./freshness.js";
import { readState } from "./state.js";
import type { UpdateSettings } from "./settings.js";

export type DataStatus = Omit<HealthResponse, "status">;

export function dataStatus(databases: readonly GeoDatabaseInfo[], settings: UpdateSettings, dataDir: string, now = new Date()): DataStatus {
  const fresh = withFreshness(databases, now, settings.maxAgeDays);
  const state = readState(dataDir);
  const checks = Object.values(state.databases);
  return {
    stale: fresh.some((db) => db.stale),
    maxAgeDays: settings.maxAgeDays,
    databases: fresh,
    update: {
      source: settings.source,
      everySeconds: settings.everyMs === null ? null : Math.round(settings.everyMs / 1000),
      lastCheckAt: state.lastCheckAt,
      lastCheckOk: state.lastCheckAt === null ? null : checks.every((db) => !db?.lastError),
    },
  };
}
