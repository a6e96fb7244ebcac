/**
 * `npm run data:coverage`: for N random public IPv4 addresses (seeded, so runs compare), the share
 * of non-null values of every leaf of the Ip object, from the data the engine would serve
 * (bundled by default; IPATLAS_CITY_DB / IPATLAS_ASN_DB or the flags to measure MaxMind files).
 * Exits 1 when a target of issue #2 is missed.
 *
 *   npm run data:coverage -- [--count 10000] [--seed 20261122] [--city-db FILE] [--asn-db FILE]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createGeoEngine } from "../server/geo/engine/engine.js";
import { randomPublicIpv4 } from "../test/helpers/random-addresses.js";
import { IP_OBJECT_PATHS, type IpObjectPath } from "../lib/schemas/ip-object.js";

const { values } = parseArgs({
  options: {
    count: { type: "string", default: "10000" },
    seed: { type: "string", default: "20261122" },
    "city-db": { type: "string", default: process.env.IPATLAS_CITY_DB || undefined },
    "asn-db": { type: "string", default: process.env.IPATLAS_ASN_DB || undefined },
    "data-dir": { type: "string" },
  },
});

const TARGETS: Partial<Record<IpObjectPath, number>> = {
  "continent.country.code": 0.99,
  "registered_country.code": 0.99,
  "asn.number": 0.95,
  "continent.country.city.name": 0.6,
};

const dataDir = values["data-dir"] ?? mkdtempSync(join(tmpdir(), "ipatlas-coverage-"));
const engine = await createGeoEngine({
  cityDb: values["city-db"],
  asnDb: values["asn-db"],
  dataDir,
  publicBaseUrl: () => "http://127.0.0.1:8787",
  logger: { info() {}, warn: console.warn, error: console.error },
});

const addresses = randomPublicIpv4(Number(values.count), Number(values.seed));
const known = new Map<IpObjectPath, number>(IP_OBJECT_PATHS.map((path) => [path, 0]));
const now = new Date();
for (const ip of addresses) {
  const { data } = engine.convert(ip, now);
  for (const path of IP_OBJECT_PATHS) {
    let value: unknown = data;
    for (const key of path.split(".")) value = value === null || value === undefined ? null : (value as Record<string, unknown>)[key];
    if (value !== null && value !== undefined) known.set(path, known.get(path)! + 1);
  }
}

console.log(`coverage of ${addresses.length.toLocaleString("en")} random public IPv4 addresses (seed ${values.seed})`);
for (const db of engine.databases()) console.log(`  ${db.name.padEnd(19)} ${db.kind.padEnd(8)} ${db.source}  built ${db.buildDate ?? "?"}`);
console.log("");
let missed = 0;
for (const path of IP_OBJECT_PATHS) {
  const share = known.get(path)! / addresses.length;
  const target = TARGETS[path];
  const verdict = target === undefined ? "" : share >= target ? `  target >= ${target * 100}%: ok` : `  target >= ${target * 100}%: MISSED`;
  if (target !== undefined && share < target) missed++;
  console.log(`  ${path.padEnd(42)} ${(share * 100).toFixed(2).padStart(6)}%${verdict}`);
}
await engine.close();
if (!values["data-dir"]) rmSync(dataDir, { recursive: true, force: true });
process.exitCode = missed ? 1 : 0;
