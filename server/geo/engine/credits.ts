/**
 * The data sources to credit for the engine's answers (lib/schemas/data-sources.ts): DB-IP for
 * the bundled city data and the bundled ASN data (which merges DB-IP's ASN Lite), MaxMind for a
 * configured .mmdb file. Downloaded data can change the publisher while serving, so callers ask per answer.
 */
import type { DataSource } from "../../../lib/schemas/data-sources.js";
import type { GeoDatabaseInfo } from "../types.js";

export function dataSources(databases: readonly GeoDatabaseInfo[]): DataSource[] {
  const sources: DataSource[] = [];
  if (databases.some((db) => (db.kind === "bundled" && (db.name === "city" || db.name === "asn")) || db.kind === "dbip")) sources.push("DB-IP");
  if (databases.some((db) => db.kind === "maxmind")) sources.push("MaxMind");
  return sources;
}
