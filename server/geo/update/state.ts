/**
 * What the updater remembers between runs, in `<data dir>/geo/update-state.json`: per database the
 * URL, ETag and Last-Modified of the file in place (for conditional requests) and the outcome of
 * the last check. Servers sharing the data dir read it for /healthz and to see whether a check is
 * due; a lock file makes sure one updater at a time works on the dir.
 */
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { MmdbRole } from "../sources/mmdb-check.js";
import { lockPath, statePath } from "./paths.js";

export interface DatabaseState {
  url: string | null;
  provider: string | null;
  etag: string | null;
  lastModified: string | null;
  buildDate: string | null;
  /** when the file in place was written */
  updatedAt: string | null;
  lastCheckAt: string | null;
  /** null when the last check succeeded (updated or unchanged) */
  lastError: string | null;
}

export interface UpdateState {
  lastCheckAt: string | null;
  databases: Partial<Record<MmdbRole, DatabaseState>>;
}

export function readState(dataDir: string): UpdateState {
  try {
    const parsed = JSON.parse(readFileSync(statePath(dataDir), "utf8")) as UpdateState;
    return { lastCheckAt: parsed.lastCheckAt ?? null, databases: parsed.databases ?? {} };
  } catch {
    return { lastCheckAt: null, databases: {} };
  }
}

/** Written beside and renamed over, so a reader never sees half a file. */
export function writeState(dataDir: string, state: UpdateState): void {
  const path = statePath(dataDir);
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(state, null, 2) + "\n");
  renameSync(temporary, path);
}

/** A lock older than this is taken over: its holder died without removing it. */
const LOCK_STALE_MS = 30 * 60_000;

/** Takes the update lock of the data dir; returns the release function, or null when another updater holds it. */
export function takeLock(dataDir: string): (() => void) | null {
  const path = lockPath(dataDir);
  mkdirSync(dirname(path), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, "wx");
      writeFileSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      if (!lockIsAbandoned(path)) return null;
      rmSync(path, { force: true });
    }
  }
  return null;
}

function lockIsAbandoned(path: string): boolean {
  try {
    if (Date.now() - statSync(path).mtimeMs > LOCK_STALE_MS) return true;
    const pid = Number(readFileSync(path, "utf8").trim());
    if (!Number.isInteger(pid) || pid <= 0) return true;
    process.kill(pid, 0);
    return false;
  } catch (error) {
    // ESRCH: no such process; a vanished lock file counts as free too
    return (error as NodeJS.ErrnoException).code !== "EPERM";
  }
}
