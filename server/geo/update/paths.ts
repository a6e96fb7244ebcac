/**
 * Where updated data lives. A configured file (IPATLAS_CITY_DB / IPATLAS_ASN_DB) is updated in
 * place; otherwise the updater writes to the data dir, which the engine follows the same way.
 */
import { join } from "node:path";
import type { MmdbRole } from "../sources/mmdb-check.js";

export const ROLES: readonly MmdbRole[] = ["city", "asn"];

/** `<data dir>/geo/downloaded/city.mmdb`, `…/asn.mmdb` */
export function downloadedPath(dataDir: string, role: MmdbRole): string {
  return join(dataDir, "geo", "downloaded", `${role}.mmdb`);
}

/** The file the updater replaces for a role: the configured one, else the data dir's. */
export function targetPath(settings: { dataDir: string; cityDb: string | null; asnDb: string | null }, role: MmdbRole): string {
  return (role === "city" ? settings.cityDb : settings.asnDb) ?? downloadedPath(settings.dataDir, role);
}

export function statePath(dataDir: string): string {
  return join(dataDir, "geo", "update-state.json");
}

export function lockPath(dataDir: string): string {
  return join(dataDir, "geo", "update.lock");
}
