/**
 * `ipatlas data update` and the schedule in `serve`: fetch each database from its source, and put
 * it in place only when it is a good, newer file. Never worse than before: any failure (network,
 * size, time, unpacking, the mmdb checks, the lookup test, a file older than the one in place)
 * leaves the file in place untouched. The swap is a rename in the same directory, which every
 * server process following the file (sources/watched-mmdb.ts) picks up within a second.
 */
import { mkdir, open, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { Reader, type Response } from "maxmind";
import { openCheckedMmdbInSlices, type MmdbRole } from "../sources/mmdb-check.js";
import { mmdbBuildDate } from "../sources/mmdb-metadata.js";
import type { GeoLogger } from "../logger.js";
import { download, type DownloadResult } from "./download.js";
import { candidates, displayUrl, type Candidate, type Origins } from "./sources.js";
import { gunzipMmdb, sha256, untarMmdb } from "./unpack.js";
import { smokeTest } from "./smoke-test.js";
import { readState, takeLock, writeState, type DatabaseState } from "./state.js";
import { ROLES, targetPath } from "./paths.js";
import type { UpdateSettings } from "./settings.js";

export interface UpdateLimits {
  /** largest download accepted */
  maxDownloadBytes: number;
  /** largest .mmdb accepted once unpacked */
  maxUnpackedBytes: number;
  timeoutMs: number;
  stallMs: number;
}

export const DEFAULT_LIMITS: UpdateLimits = {
  maxDownloadBytes: 512 * 1024 * 1024,
  maxUnpackedBytes: 1024 * 1024 * 1024,
  timeoutMs: 15 * 60_000,
  stallMs: 60_000,
};

export interface UpdateOptions {
  dataDir: string;
  /** configured files are updated in place (IPATLAS_CITY_DB / IPATLAS_ASN_DB) */
  cityDb: string | null;
  asnDb: string | null;
  settings: UpdateSettings;
  /** decides the DB-IP months to try; the tests fix it */
  now?: Date;
  origins?: Origins;
  limits?: Partial<UpdateLimits>;
  onProgress?: (role: MmdbRole, received: number, total: number | null) => void;
  log?: GeoLogger;
}

export interface DatabaseUpdate {
  name: MmdbRole;
  status: "updated" | "unchanged" | "failed";
  provider: string | null;
  url: string | null;
  file: string;
  /** build date of the file in place after the run */
  buildDate: string | null;
  /** size of the new file, when one was put in place */
  bytes: number | null;
  error: string | null;
}

export interface UpdateReport {
  /** busy: another updater holds the data dir's lock; nothing was done */
  status: "done" | "busy";
  source: UpdateSettings["source"];
  databases: DatabaseUpdate[];
}

class RefusedError extends Error {}

export async function updateData(options: UpdateOptions): Promise<UpdateReport> {
  const log = options.log ?? console;
  const release = takeLock(options.dataDir);
  if (!release) {
    log.info("geo: data update skipped: another update of this data dir is running");
    return { status: "busy", source: options.settings.source, databases: [] };
  }
  try {
    const now = options.now ?? new Date();
    const state = readState(options.dataDir);
    const databases: DatabaseUpdate[] = [];
    for (const role of ROLES) {
      const result = await updateOne(role, options, state.databases[role] ?? null, now);
      databases.push(result.update);
      state.databases[role] = result.state;
    }
    state.lastCheckAt = new Date().toISOString();
    writeState(options.dataDir, state);
    const line = `geo: data update (${options.settings.source}): ${databases.map(describe).join("; ")}`;
    if (databases.some((db) => db.status === "failed")) log.error(line);
    else log.info(line);
    return { status: "done", source: options.settings.source, databases };
  } finally {
    release();
  }
}

function describe(db: DatabaseUpdate): string {
  if (db.status === "updated") return `${db.name} updated from ${db.url} (built ${db.buildDate}, ${(db.bytes! / 1e6).toFixed(1)} MB)`;
  if (db.status === "unchanged") return `${db.name} unchanged (built ${db.buildDate ?? "?"})`;
  return `${db.name} failed: ${db.error}; kept ${db.buildDate ? `the data built ${db.buildDate}` : "what was there"}`;
}

async function updateOne(
  role: MmdbRole,
  options: UpdateOptions,
  previous: DatabaseState | null,
  now: Date,
): Promise<{ update: DatabaseUpdate; state: DatabaseState }> {
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const file = targetPath(options, role);
  const installed = await installedBuildDate(file);
  const checkedAt = new Date().toISOString();
  const base: DatabaseState = previous ?? { url: null, provider: null, etag: null, lastModified: null, buildDate: null, updatedAt: null, lastCheckAt: null, lastError: null };
  const result = (status: DatabaseUpdate["status"], fields: Partial<DatabaseUpdate>, state: Partial<DatabaseState>) => ({
    update: { name: role, status, provider: null, url: null, file, buildDate: installed, bytes: null, error: null, ...fields },
    state: { ...base, buildDate: installed, lastCheckAt: checkedAt, lastError: null, ...state },
  });

  const missing: string[] = [];
  try {
    for (const candidate of candidates(role, options.settings, now, options.origins)) {
      const url = displayUrl(candidate.url);
      // Conditional only for the same URL and while the file it describes is still in place.
      const conditional = installed !== null && base.url === url;
      const answer: DownloadResult = await download(candidate.url, {
        authorization: candidate.authorization,
        etag: conditional ? base.etag : null,
        lastModified: conditional ? base.lastModified : null,
        maxBytes: limits.maxDownloadBytes,
        timeoutMs: limits.timeoutMs,
        stallMs: limits.stallMs,
        onProgress: options.onProgress && ((received, total) => options.onProgress!(role, received, total)),
      });
      if (answer.status === "not-found") {
        missing.push(url);
        continue;
      }
      if (answer.status === "not-modified") return result("unchanged", { provider: candidate.provider, url }, {});

      const mmdb = await accept(role, candidate, answer.body, installed, limits, options);
      if (mmdb.sameAsInstalled) {
        return result("unchanged", { provider: candidate.provider, url }, { url, provider: candidate.provider, etag: answer.etag, lastModified: answer.lastModified });
      }
      await putInPlace(file, mmdb.buffer);
      return result(
        "updated",
        { provider: candidate.provider, url, buildDate: mmdb.buildDate, bytes: mmdb.buffer.length },
        { url, provider: candidate.provider, etag: answer.etag, lastModified: answer.lastModified, buildDate: mmdb.buildDate, updatedAt: new Date().toISOString() },
      );
    }
    const error = `not found (HTTP 404): ${missing.join(", ")}`;
    return result("failed", { error }, { lastError: error });
  } catch (error) {
    const message = (error as Error).message;
    return result("failed", { error: message }, { lastError: message });
  }
}

/** Unpacks and checks a download; throws saying why it is refused. */
async function accept(role: MmdbRole, candidate: Candidate, body: Buffer, installed: string | null, limits: UpdateLimits, options: UpdateOptions) {
  if (candidate.sha256Url) await verifySha256(candidate, body, limits);
  const buffer = candidate.format === "gzip" ? await gunzipMmdb(body, limits.maxUnpackedBytes) : await untarMmdb(body, limits.maxUnpackedBytes);
  let reader: Reader<Response>;
  try {
    ({ reader } = await openCheckedMmdbInSlices(buffer, role));
  } catch (error) {
    throw new RefusedError(`refused: ${(error as Error).message}`);
  }
  const buildDate = reader.metadata.buildEpoch.toISOString();
  if (candidate.month) {
    // DB-IP names the file for the month it is published in; it is built that month or at the end of the one before.
    const [published, before] = [candidate.month, new Date(Date.UTC(Number(candidate.month.slice(0, 4)), Number(candidate.month.slice(5, 7)) - 2, 1)).toISOString().slice(0, 7)];
    const built = buildDate.slice(0, 7);
    if (built !== published && built !== before) throw new RefusedError(`refused: the file for ${published} was built ${buildDate.slice(0, 10)}`);
  }
  if (installed !== null && buildDate < installed) {
    throw new RefusedError(`refused: built ${buildDate.slice(0, 10)}, older than the file in place (built ${installed.slice(0, 10)})`);
  }
  try {
    smokeTest(reader, role, options.settings.probes[role]);
  } catch (error) {
    throw new RefusedError(`refused: ${(error as Error).message}`);
  }
  const sameAsInstalled = installed === buildDate && (await sameBytes(targetPath(options, role), buffer));
  return { buffer, buildDate, sameAsInstalled };
}

async function verifySha256(candidate: Candidate, body: Buffer, limits: UpdateLimits): Promise<void> {
  const answer = await download(candidate.sha256Url!, { authorization: candidate.authorization, maxBytes: 4096, timeoutMs: Math.min(limits.timeoutMs, 60_000), stallMs: limits.stallMs });
  if (answer.status === "not-found") return; // not published for this file
  if (answer.status !== "ok") throw new RefusedError("refused: the SHA-256 could not be fetched");
  const expected = /^[0-9a-f]{64}/i.exec(answer.body.toString("utf8").trim())?.[0]?.toLowerCase();
  if (!expected) throw new RefusedError("refused: the published SHA-256 is not a SHA-256");
  const actual = await sha256(body);
  if (actual !== expected) throw new RefusedError(`refused: SHA-256 ${actual} is not the published ${expected}`);
}

// The file work below is asynchronous: `serve --update-every` runs this beside the requests, and
// a 60 MB file read, written or flushed at once would hold them all back (docs/data.md "Updates").

async function installedBuildDate(file: string): Promise<string | null> {
  try {
    return (await mmdbBuildDate(file))?.toISOString() ?? null;
  } catch {
    return null;
  }
}

/** the file's bytes against `buffer`, a piece at a time: the file is as large as the download */
async function sameBytes(file: string, buffer: Buffer): Promise<boolean> {
  let handle;
  try {
    handle = await open(file, "r");
    if ((await handle.stat()).size !== buffer.length) return false;
    const piece = Buffer.alloc(Math.min(COMPARED_PIECE_BYTES, buffer.length));
    for (let at = 0; at < buffer.length; ) {
      const { bytesRead } = await handle.read({ buffer: piece, position: at });
      if (bytesRead === 0 || !piece.subarray(0, bytesRead).equals(buffer.subarray(at, at + bytesRead))) return false;
      at += bytesRead;
    }
    return true;
  } catch {
    return false;
  } finally {
    await handle?.close();
  }
}
const COMPARED_PIECE_BYTES = 1 << 20;

/** Written and flushed beside the target, then renamed over it: readers see the old file or the new one. */
async function putInPlace(file: string, buffer: Buffer): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.download`;
  try {
    const handle = await open(temporary, "w");
    try {
      await handle.writeFile(buffer);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  } finally {
    await rm(temporary, { force: true });
  }
}
