/**
 * API benchmark over HTTP on loopback, against the real server (`ipatlas serve`) on a fresh data
 * dir (SQLite) or a fresh PostgreSQL schema (bench/_backend.ts) with a `scale` project:
 *   1. GET /convert (stored) req/s and p99, next to the lookup-only baseline GET /bench/lookup
 *      (same key check and envelope, nothing stored) measured in the same run, and the server's
 *      CPU a request for each (its main thread, all its threads);
 *   2. POST /convert with 5000 random public IPs: server time (`_req.resTime`) p50 and the
 *      server's CPU a POST (its threads; not PostgreSQL's own), also used to fill the store;
 *   3. GET /conversions/list (limit 50): plain, ipSearch prefix, ipSearch CIDR, p99 over HTTP on
 *      the filled store.
 *
 *   npx tsx bench/api.ts [--seconds 10] [--connections 32] [--rows 1000000] [--list-seconds 5] [--backend sqlite|postgres]
 */
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { randomPublicIpv4 } from "../test/helpers/random-addresses.js";
import { startServer } from "../test/helpers/server.js";
import { defaultBackend, openBenchBackend } from "./_backend.js";
import { percentile } from "./_percentile.js";
import { cpuMs, cpuMsByThread, peakRssKb } from "./_proc.js";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "10" },
    connections: { type: "string", default: "32" },
    rows: { type: "string", default: "1000000" },
    "list-seconds": { type: "string", default: "5" },
    backend: { type: "string", default: defaultBackend },
  },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const rows = Number(values.rows);
const listSeconds = Number(values["list-seconds"]);
const BULK = 5000;

const backend = await openBenchBackend(values.backend);
const server = await startServer({ env: { ...backend.env, IPATLAS_BENCH_ROUTES: "1", IPATLAS_LOG_LEVEL: "warn" } });
try {
  const { secretKey } = await server.cli("project", "create", "--name", "scale", "--plan", "scale");
  const headers = { "x-api-key": secretKey };
  const pool = randomPublicIpv4(10_000);

  async function cannon(path: (ip: string) => string, duration: number, conns: number) {
    const result = await autocannon({
      url: server.url,
      connections: conns,
      duration,
      headers,
      requests: [{ setupRequest: (req: Record<string, unknown>) => ({ ...req, path: path(pool[Math.floor(Math.random() * pool.length)]!) }) }],
    });
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${path("x")}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    return { rps: result.requests.average, p99: result.latency.p99, total: result.requests.total };
  }

  const table: Array<[string, string]> = [];
  const row = (name: string, value: string) => {
    table.push([name, value]);
    console.log(`${name.padEnd(48)} ${value}`);
  };
  console.log(`API bench on ${backend.name}: ${connections} connections, ${seconds} s per run, server ${server.url}`);

  // warm both paths (JIT, page cache), then alternate the two so that load from anything else on
  // the machine hits both alike; the figures are the means of the rounds
  await cannon((ip) => `/bench/lookup?ip=${ip}`, 2, connections);
  await cannon((ip) => `/convert?ip=${ip}`, 2, connections);
  const rounds = 2;
  const lookups = [];
  const stores = [];
  // the server's CPU a request, on its main thread and on all its threads: the main thread's
  // bounds req/s, the rest ran beside it (the SQLite writer, V8's helpers) on cores the client shares
  const cpu = { lookup: { main: 0, all: 0 }, stored: { main: 0, all: 0 } };
  const allThreads = (byThread: Record<string, number>) => Object.values(byThread).reduce((total, ms) => total + ms, 0);
  const measured = async (kind: keyof typeof cpu, run: () => ReturnType<typeof cannon>) => {
    const before = cpuMsByThread(server.process.pid!);
    const result = await run();
    const after = cpuMsByThread(server.process.pid!);
    cpu[kind].main += after.main! - before.main!;
    cpu[kind].all += allThreads(after) - allThreads(before);
    return result;
  };
  for (let round = 0; round < rounds; round++) {
    lookups.push(await measured("lookup", () => cannon((ip) => `/bench/lookup?ip=${ip}`, seconds / rounds, connections)));
    stores.push(await measured("stored", () => cannon((ip) => `/convert?ip=${ip}`, seconds / rounds, connections)));
  }
  const mean = (runs: Array<{ rps: number; p99: number; total: number }>) => ({
    rps: runs.reduce((sum, run) => sum + run.rps, 0) / runs.length,
    p99: Math.max(...runs.map((run) => run.p99)),
    total: runs.reduce((sum, run) => sum + run.total, 0),
  });
  const lookup = mean(lookups);
  const stored = mean(stores);
  row("GET /bench/lookup (lookup only) req/s", lookup.rps.toFixed(0));
  row("GET /bench/lookup p99 ms", String(lookup.p99));
  row("GET /convert (stored) req/s", stored.rps.toFixed(0));
  row("GET /convert p99 ms", String(stored.p99));
  row("stored / lookup-only ratio (target >= 0.75)", (stored.rps / lookup.rps).toFixed(2));
  const perRequest = (ms: number, requests: number) => ((ms * 1000) / requests).toFixed(1);
  row("GET server CPU us a request, main / all threads", `lookup-only ${perRequest(cpu.lookup.main, lookup.total)} / ${perRequest(cpu.lookup.all, lookup.total)}, stored ${perRequest(cpu.stored.main, stored.total)} / ${perRequest(cpu.stored.all, stored.total)}`);

  // POST /convert 5000: sequential requests, server-side time from _req.resTime; they also fill the store
  const resTimes: number[] = [];
  const wall: number[] = [];
  const fillTarget = Math.max(rows, 20 * BULK);
  // the server's CPU (all its threads) a POST depends less on the machine's other load than its time does
  const cpuBefore = cpuMs(server.process.pid!);
  const threadsBefore = cpuMsByThread(server.process.pid!);
  for (let done = 0; done < fillTarget; done += BULK) {
    // a seed per bulk: each POST brings new addresses, the same ones in every run
    const ips = randomPublicIpv4(BULK, done);
    const started = performance.now();
    const res = await fetch(`${server.url}/convert`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ ips }) });
    const body = (await res.json()) as { code: number; _req: { resTime: number } };
    wall.push(performance.now() - started);
    if (body.code !== 200) throw new Error(`POST /convert answered ${body.code}`);
    resTimes.push(body._req.resTime);
  }
  row(`POST /convert ${BULK} IPs server p50 ms (target <= 60)`, percentile(resTimes, 50).toFixed(1));
  row(`POST /convert ${BULK} IPs round trip p50 ms`, percentile(wall, 50).toFixed(1));
  row(`POST /convert ${BULK} IPs server CPU ms (all threads, mean)`, ((cpuMs(server.process.pid!) - cpuBefore) / resTimes.length).toFixed(0));
  // where a POST's CPU goes: on two cores its p50 is hardly under half of all of it, however the work overlaps
  const threadsAfter = cpuMsByThread(server.process.pid!);
  const split = Object.entries(threadsAfter).map(([kind, ms]) => `${kind} ${((ms - threadsBefore[kind]!) / resTimes.length).toFixed(0)}`);
  row(`  of which by thread`, split.join(", "));
  // every POST brought new addresses, so the caches of records and parts are full by now
  row(`server peak RSS MB after ${resTimes.length} POSTs`, (peakRssKb(server.process.pid!) / 1024).toFixed(0));

  const counted = await fetch(`${server.url}/conversions/list?limit=1`, { headers });
  const storedRows = ((await counted.json()) as { data: { totalCount: number } }).data.totalCount;
  const list = async (query: string) => (await cannon(() => `/conversions/list?limit=50${query}`, listSeconds, 4)).p99;
  row(`list limit 50 plain p99 ms, ${storedRows} rows (target <= 20)`, String(await list("")));
  row("list limit 50 ipSearch prefix p99 ms", String(await list("&ipSearch=45.1")));
  row("list limit 50 ipSearch CIDR p99 ms", String(await list("&ipSearch=" + encodeURIComponent("45.0.0.0/8"))));
  // the server's upkeep warning: these lists then read a table page per match (docs/storage.md)
  if (server.output().includes("autovacuum is off")) console.log("(PostgreSQL's autovacuum is off: the filtered lists above read the table for every match)");
} finally {
  await server.stop();
  await backend.dispose();
}
