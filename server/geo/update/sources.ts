/**
 * Where each database is fetched from, as an ordered list of candidates: the first that exists
 * wins. DB-IP Lite is published monthly under the month in the file name, so the month before is
 * the fallback until the new one is out. MaxMind's download endpoint (the one geoipupdate uses)
 * takes the account id and licence key as basic auth and answers a tar.gz with a published SHA-256.
 */
import type { MmdbRole } from "../sources/mmdb-check.js";
import type { UpdateSettings } from "./settings.js";

export interface Candidate {
  url: string;
  /** gzip: one gzipped .mmdb (DB-IP); tar.gz: a tarball holding one .mmdb (MaxMind) */
  format: "gzip" | "tar.gz";
  /** where the SHA-256 of the download is published; a missing one (404) is not an error */
  sha256Url?: string;
  /** the Authorization header to send (never follows a redirect to another host) */
  authorization?: string;
  /** DB-IP: the month the file is named for (YYYY-MM); its build date must be in it */
  month?: string;
  provider: "DB-IP" | "MaxMind";
}

export const DBIP_BASE_URL = "https://download.db-ip.com/free";
export const MAXMIND_BASE_URL = "https://download.maxmind.com";

/** Origins the tests (and only the tests) point elsewhere; a mirror is the user-facing way. */
export interface Origins {
  dbip?: string;
  maxmind?: string;
}

/** "2026-11" for now and "2026-10" for the month before, in UTC. */
export function monthsToTry(now: Date): string[] {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const month = (date: Date) => date.toISOString().slice(0, 7);
  return [month(new Date(Date.UTC(y, m, 1))), month(new Date(Date.UTC(y, m - 1, 1)))];
}

export function candidates(role: MmdbRole, settings: UpdateSettings, now: Date, origins: Origins = {}): Candidate[] {
  if (settings.source === "dbip") {
    const base = settings.mirrorUrl ?? origins.dbip ?? DBIP_BASE_URL;
    const name = role === "city" ? "city" : "asn";
    return monthsToTry(now).map((month) => ({ url: `${base}/dbip-${name}-lite-${month}.mmdb.gz`, format: "gzip", month, provider: "DB-IP" }));
  }
  const edition = settings.maxmindEditions[role];
  if (settings.mirrorUrl) {
    const url = `${settings.mirrorUrl}/${edition}.tar.gz`;
    return [{ url, format: "tar.gz", sha256Url: `${url}.sha256`, provider: "MaxMind" }];
  }
  const base = origins.maxmind ?? MAXMIND_BASE_URL;
  const url = `${base}/geoip/databases/${encodeURIComponent(edition)}/download?suffix=tar.gz`;
  const authorization = `Basic ${Buffer.from(`${settings.maxmindAccountId}:${settings.maxmindLicenseKey}`).toString("base64")}`;
  return [{ url, format: "tar.gz", sha256Url: `${url}.sha256`, authorization, provider: "MaxMind" }];
}

/** The URL without credentials or query secrets, for logs and status. */
export function displayUrl(url: string): string {
  const parsed = new URL(url);
  parsed.username = "";
  parsed.password = "";
  return parsed.toString();
}
