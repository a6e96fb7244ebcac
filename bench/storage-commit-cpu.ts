/**
 * What one 5000-row commitConversions costs the process, measured in CPU time rather than wall
 * time so that it can be compared on a machine other work is running on: process CPU (every
 * thread), the main thread's busy time (event-loop utilisation, which leaves out work done on
 * other threads) and the longest event-loop stall during the commits.
 *
 *   npx tsx bench/storage-commit-cpu.ts [--backend sqlite|postgres] [--fill 100000] [--commits 20] [--writer-thread]
 *     [--rows 5000] [--together 1] [--new-networks 0]
 *
 * --rows 1 --together 25 --commits 400 is GET /convert's shape instead: 25 one-row commits
 * submitted at once (group commit makes them one group), 400 times; the figures are then per
 * group of 25. --new-networks 0.7: that share of the measured rows brings a network part not
 * stored yet, as most GETs of random addresses do.
 *
 * The store is filled to --fill rows first (the random ip index makes a commit grow with the
 * table), then --commits batches of 5000 are committed one after the other and measured.
 * PostgreSQL uses the database URL set (bench/_backend.ts; default
 * postgres://postgres@127.0.0.1:5432/test) in a fresh schema that is dropped afterwards.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import pg from "pg";
import { newPartToken } from "../server/geo/engine/part-tokens.js";
import { createStorage } from "../server/storage/index.js";
import type { NewConversion } from "../server/storage/types.js";
import { sampleConversionWithParts } from "../test/helpers/sample-conversions.js";
import { benchPostgresUrl } from "./_backend.js";

const { values } = parseArgs({
  options: {
    backend: { type: "string", default: "sqlite" },
    fill: { type: "string", default: "100000" },
    commits: { type: "string", default: "20" },
    "writer-thread": { type: "boolean", default: false },
    rows: { type: "string", default: "5000" },
    together: { type: "string", default: "1" },
    "new-networks": { type: "string", default: "0" },
  },
});
const BATCH = 5000;
const databaseUrl = benchPostgresUrl;
const schema = `ipatlas_cpu_${randomBytes(4).toString("hex")}`;
const dataDir = mkdtempSync(join(tmpdir(), "ipatlas-cpu-"));
const storage = await createStorage(values.backend === "postgres" ? { dataDir, databaseUrl, schema } : { dataDir, sqliteWriterThread: values["writer-thread"] });

function batch(rows = BATCH, newNetworks = 0): NewConversion[] {
  return Array.from({ length: rows }, () => (Math.random() < newNetworks ? withNewNetwork(sampleConversionWithParts(0.2)) : sampleConversionWithParts(0.2)));
}

let nextAsn = 4_200_000_000;
function withNewNetwork(conversion: NewConversion): NewConversion {
  const asn = nextAsn++;
  return { ...conversion, data: { ...conversion.data!, asn: { number: asn, name: `Network ${asn}` } }, parts: { ...conversion.parts!, network: newPartToken() } };
}

try {
  const project = await storage.createProject({ name: "cpu", plan: "scale" });
  const commit = (conversions: NewConversion[]) =>
    storage.commitConversions({ projectId: project.id, period: "2026-11", limit: null, conversions });
  for (let done = 0; done < Number(values.fill); done += BATCH) await commit(batch());

  const cpu: number[] = [];
  const busy: number[] = [];
  const stalls: number[] = [];
  for (let i = 0; i < Number(values.commits); i++) {
    const groups = Array.from({ length: Number(values.together) }, () => batch(Number(values.rows), Number(values["new-networks"])));
    // the longest gap between two ticks of a 1 ms timer: how long nothing else could run
    let last = performance.now();
    let stall = 0;
    const ticker = setInterval(() => {
      const now = performance.now();
      stall = Math.max(stall, now - last);
      last = now;
    }, 1);
    const elu = performance.eventLoopUtilization();
    const before = process.cpuUsage();
    await Promise.all(groups.map(commit));
    const used = process.cpuUsage(before);
    const loop = performance.eventLoopUtilization(elu);
    clearInterval(ticker);
    stall = Math.max(stall, performance.now() - last);
    cpu.push((used.user + used.system) / 1000);
    busy.push(loop.active);
    stalls.push(stall);
  }
  const show = (label: string, ms: number[]) => {
    const sorted = [...ms].sort((a, b) => a - b);
    const mean = ms.reduce((sum, x) => sum + x, 0) / ms.length;
    console.log(`  ${label.padEnd(34)} median ${sorted[sorted.length >> 1]!.toFixed(1)} ms  mean ${mean.toFixed(1)} ms  max ${sorted.at(-1)!.toFixed(1)} ms`);
  };
  const shape = Number(values.together) > 1 ? `${values.commits} groups of ${values.together} commits of ${values.rows} rows` : `${values.commits} commits of ${values.rows} rows`;
  console.log(`${values.backend}${values["writer-thread"] ? " (writer thread)" : ""}, ${shape} after ${values.fill} rows:`);
  show("process CPU per commit", cpu);
  show("main thread busy per commit", busy);
  show("longest event-loop stall", stalls);
} finally {
  await storage.close();
  rmSync(dataDir, { recursive: true, force: true });
  if (values.backend === "postgres") {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  }
}
