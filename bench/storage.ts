/**
 * Storage benchmark, straight on createStorage (the API engineer benches over HTTP):
 * bytes per conversion on disk, the cost of one 5000-row commit as the table fills (the random
 * ip indexes make it grow with the table), and list p99 (limit 50: plain, ipSearch prefix,
 * ipSearch CIDR) on N stored conversions.
 *
 *   npx tsx bench/storage.ts [--backend sqlite|postgres] [--count 1000000] [--runs 300] [--keep DIR] [--writer-thread]
 *
 * --keep DIR (SQLite) or SCHEMA (PostgreSQL): fill it once and keep it, later runs only measure.
 * The backend defaults to PostgreSQL when a database URL is set (bench/_backend.ts), SQLite
 * otherwise. PostgreSQL uses that URL (default postgres://postgres@127.0.0.1:5432/test) and a
 * fresh schema that is dropped afterwards.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { createStorage, parseIpSearch, type Storage } from "../server/storage/index.js";
import { SQLITE_FILE, type SqliteDialect } from "../server/storage/sqlite/dialect.js";
import type { PostgresDialect } from "../server/storage/postgres/dialect.js";
import type { SqlStorage } from "../server/storage/sql-storage.js";
import { sampleConversionWithParts } from "../test/helpers/sample-conversions.js";
import type { ListQuery, NewConversion } from "../server/storage/types.js";
import { benchPostgresUrl, defaultBackend } from "./_backend.js";

const { values } = parseArgs({
  options: {
    backend: { type: "string", default: defaultBackend },
    count: { type: "string", default: "1000000" },
    runs: { type: "string", default: "300" },
    keep: { type: "string" },
    // SQLite: write on the writer thread, as the server does
    "writer-thread": { type: "boolean", default: false },
  },
});
const backend = values.backend as "sqlite" | "postgres";
const count = Number(values.count);
const runs = Number(values.runs);
/** share of IPv6 addresses among the stored conversions */
const IPV6_SHARE = 0.2;
const BATCH = 5000;

const dataDir = backend === "sqlite" && values.keep ? values.keep : mkdtempSync(join(tmpdir(), "ipatlas-bench-"));
const databaseUrl = benchPostgresUrl;
const schema = backend === "postgres" && values.keep ? values.keep : `ipatlas_bench_${randomBytes(4).toString("hex")}`;
const storage = await createStorage(backend === "postgres" ? { dataDir, databaseUrl, schema } : { dataDir, sqliteWriterThread: values["writer-thread"] });

try {
  const kept = (await storage.listProjects()).find((p) => p.name === "bench");
  const project = kept ?? (await storage.createProject({ name: "bench", plan: "scale" }));
  const fillStart = performance.now();
  /** ms per full 5000-row commit (encoding included, building the sample objects not), in fill order */
  const commits: number[] = [];
  for (let done = kept ? count : 0; done < count; done += BATCH) {
    const conversions: NewConversion[] = [];
    for (let i = 0; i < Math.min(BATCH, count - done); i++) conversions.push(sampleConversionWithParts(IPV6_SHARE));
    const start = performance.now();
    await storage.commitConversions({ projectId: project.id, period: "2026-11", limit: null, conversions });
    if (conversions.length === BATCH) commits.push(performance.now() - start);
  }
  const fillSeconds = (performance.now() - fillStart) / 1000;
  const bytes = await diskBytes(storage);
  if (!kept) {
    console.log(`backend ${backend}, ${count} conversions stored in ${fillSeconds.toFixed(1)} s (${Math.round(count / fillSeconds)}/s)`);
    // the last 20 commits: what one bulk request costs once the table has (nearly) `count` rows
    const last = commits.slice(-20).sort((a, b) => a - b);
    if (last.length) {
      const mean = last.reduce((sum, ms) => sum + ms, 0) / last.length;
      console.log(`${BATCH}-row commit at ~${count} rows (last ${last.length}): mean ${mean.toFixed(1)} ms, median ${last[last.length >> 1]!.toFixed(1)} ms`);
    }
  }
  // the target is SQLite's, the zero-setup default; PostgreSQL's figure is for comparison
  const target = backend === "sqlite" ? ", target <= 250" : "";
  console.log(`bytes per conversion on disk: ${(bytes / count).toFixed(1)} (total ${(bytes / 1e6).toFixed(1)} MB${target})`);

  const cases: Array<[string, () => ListQuery["ip"]]> = [
    ["plain", () => undefined],
    ["ipSearch prefix 'A.' (random first octet)", () => parseIpSearch(`${octet()}.`)],
    ["ipSearch prefix 'A.B.' (random)", () => parseIpSearch(`${octet()}.${octet()}.`)],
    ["ipSearch CIDR A.0.0.0/8 (random)", () => parseIpSearch(`${octet()}.0.0.0/8`)],
    ["ipSearch CIDR A.B.0.0/16 (random)", () => parseIpSearch(`${octet()}.${octet()}.0.0/16`)],
    ["ipSearch CIDR 2001:db8::/32 (all IPv6)", () => parseIpSearch("2001:db8::/32")],
    ["ipSearch prefix '1' (half of IPv4)", () => parseIpSearch("1")],
  ];
  console.log(`list, limit 50, offset 0, ${runs} runs each:`);
  for (const [label, filter] of cases) {
    const times: number[] = [];
    let matched = 0;
    for (let i = 0; i < runs + 10; i++) {
      const start = performance.now();
      const result = await storage.listConversions({ projectId: project.id, offset: 0, limit: 50, ip: filter() });
      if (i >= 10) times.push(performance.now() - start);
      matched += result.totalCount;
    }
    times.sort((a, b) => a - b);
    const p = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(2);
    console.log(`  ${label.padEnd(44)} p50 ${p(0.5)} ms  p99 ${p(0.99)} ms  (avg matches ${Math.round(matched / (runs + 10))})`);
  }
} finally {
  await storage.close();
  if (backend === "postgres" && !values.keep) await dropSchema();
  if (backend === "postgres" || !values.keep) rmSync(dataDir, { recursive: true, force: true });
}

function octet(): number {
  return 1 + Math.floor(Math.random() * 222);
}

async function diskBytes(storage: Storage): Promise<number> {
  if (storage.kind === "sqlite") {
    const db = (storage as SqlStorage<SqliteDialect>).dialect.db;
    db.pragma("wal_checkpoint(TRUNCATE)");
    return statSync(join(dataDir, SQLITE_FILE)).size;
  }
  const pool = (storage as SqlStorage<PostgresDialect>).dialect.pool;
  await pool.query("VACUUM ANALYZE conversions");
  const { rows } = await pool.query(
    `SELECT sum(pg_total_relation_size(c.oid))::bigint AS bytes FROM pg_class c
     JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`,
    [schema],
  );
  return Number(rows[0].bytes);
}

async function dropSchema(): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
}
