/**
 * Many tenants' bulks at once must not stall anyone else. Against the real server (`ipatlas serve`,
 * on a fresh data dir or PostgreSQL schema: bench/_backend.ts), for `--seconds`:
 *   - `--clients` clients (default 50), each with its own key, loop POST /convert with 5000 random
 *     public addresses; every answer must be 200 or a 503 envelope with Retry-After (a request
 *     that gets no answer, its connection closed or refused, is counted among the others by its
 *     error's code, and the client goes on);
 *   - from another thread, one client loops GET /healthz and one loops GET /convert?ip=…, and
 *     their latencies are the figures (targets: p99 <= 50 ms);
 *   - the server's peak RSS (VmHWM, summed over its processes; target <= 600 MB);
 *   - from inside the server (bench/_loop-probe.mjs): event-loop delay and GC pauses over the load.
 *
 * The clients send `--bodies` distinct bodies in turn (default 300, 1.5M addresses: more than a 20 s
 * run converts), so the server keeps meeting records and parts it has not seen, as under random
 * traffic, and its caches fill. With 8 (the first versions of this bench) it soon knows them all
 * and its caches stay small: its peak RSS was ~100 MB lower than with 300.
 *
 *   npx tsx bench/concurrency.ts [--clients 50] [--seconds 20] [--keys 10] [--bodies 300] [--backend sqlite|postgres]
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { Worker } from "node:worker_threads";
import { startServer } from "../test/helpers/server.js";
import { randomPublicIpv4 } from "../test/helpers/random-addresses.js";
import { defaultBackend, openBenchBackend } from "./_backend.js";
import { percentile } from "./_percentile.js";
import { cpuMs, peakRssKb, processTree, sumOverTree } from "./_proc.js";

const { values } = parseArgs({
  options: {
    clients: { type: "string", default: "50" },
    seconds: { type: "string", default: "20" },
    keys: { type: "string", default: "10" },
    args: { type: "string", default: "" },
    backend: { type: "string", default: defaultBackend },
    bodies: { type: "string", default: "300" },
  },
});
const clients = Number(values.clients);
const seconds = Number(values.seconds);
const keyCount = Math.max(1, Math.min(clients, Number(values.keys)));
const BULK = 5000;
/** distinct bulk bodies the clients take in turn */
const bodyCount = Math.max(1, Number(values.bodies));

/** CPU time (ms) the server's processes have used, threads included: a figure that depends less on the machine's other load */
const serverCpuMs = (pid: number) => sumOverTree(pid, cpuMs);

/** peak resident set (kB) of the server's processes */
const serverPeakRssKb = (pid: number) => sumOverTree(pid, peakRssKb);

// The probes run on their own event loop: this thread spends its time on the bulks' bodies.
const PROBE = `
const { parentPort, workerData } = require("node:worker_threads");
const { url, key, until, addresses } = workerData;
const loop = async (path, out) => {
  let i = 0;
  while (Date.now() < until) {
    const started = performance.now();
    const res = await fetch(url + path(i++), { headers: { "x-api-key": key } });
    await res.arrayBuffer();
    out.push({ ms: performance.now() - started, status: res.status });
    await new Promise((r) => setTimeout(r, 20));
  }
};
const health = [], convert = [];
Promise.all([loop(() => "/healthz", health), loop((i) => "/convert?ip=" + addresses[i % addresses.length], convert)])
  .then(() => parentPort.postMessage({ health, convert }));
`;

// the server measures its own event-loop delay and GC pauses over the load (bench/_loop-probe.mjs)
const loopProbe = join(tmpdir(), `ipatlas-loop-probe-${process.pid}.json`);
const backend = await openBenchBackend(values.backend);
const server = await startServer({
  env: {
    ...backend.env,
    IPATLAS_LOG_LEVEL: "warn",
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import ${pathToFileURL(join(import.meta.dirname, "_loop-probe.mjs")).href}`.trim(),
    IPATLAS_LOOP_PROBE: loopProbe,
  },
  args: values.args ? values.args.split(" ") : [],
});
try {
  const keys: string[] = [];
  for (let k = 0; k < keyCount; k++) {
    keys.push((await server.cli<{ secretKey: string }>("project", "create", "--name", `tenant-${k}`, "--plan", "scale")).secretKey);
  }
  const probeKey = (await server.cli<{ secretKey: string }>("project", "create", "--name", "probe", "--plan", "scale")).secretKey;
  const bodies = Array.from({ length: bodyCount }, (_, i) => JSON.stringify({ ips: randomPublicIpv4(BULK, 1000 + i) }));
  // warm the paths the figures measure
  for (let i = 0; i < 3; i++) {
    await fetch(`${server.url}/convert`, { method: "POST", headers: { "x-api-key": probeKey, "content-type": "application/json" }, body: bodies[i % bodies.length]! }).then((r) => r.arrayBuffer());
  }

  console.log(`concurrency bench on ${backend.name}: ${clients} clients x ${BULK}-address POST /convert over ${keyCount} keys for ${seconds} s, server ${server.url}`);
  const until = Date.now() + seconds * 1000;
  const probe = new Worker(PROBE, { eval: true, workerData: { url: server.url, key: probeKey, until, addresses: randomPublicIpv4(1000, 7) } });
  const probed = new Promise<{ health: Array<{ ms: number; status: number }>; convert: Array<{ ms: number; status: number }> }>((resolve, reject) => {
    probe.once("message", resolve);
    probe.once("error", reject);
  });

  // answers other than 200 and 503 by status, and requests that got no answer by the error's code
  const outcome = { completed: 0, refused: 0, refusedWithoutRetryAfter: 0, other: new Map<number | string, number>(), bulkMs: [] as number[] };
  const client = async (i: number) => {
    let n = i;
    while (Date.now() < until) {
      const started = performance.now();
      let res: Response;
      let body: ArrayBuffer;
      try {
        res = await fetch(`${server.url}/convert`, {
          method: "POST",
          headers: { "x-api-key": keys[i % keyCount]!, "content-type": "application/json" },
          body: bodies[n++ % bodies.length]!,
        });
        // a 200 is megabytes: counted, not decoded (this process shares the cores with the server)
        body = await res.arrayBuffer();
      } catch (error) {
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        const code = cause?.code ?? cause?.message ?? String(error);
        outcome.other.set(code, (outcome.other.get(code) ?? 0) + 1);
        continue;
      }
      if (res.status === 200) {
        outcome.completed++;
        outcome.bulkMs.push(performance.now() - started);
      } else if (res.status === 503 && Buffer.from(body).toString().includes('"code":503')) {
        outcome.refused++;
        const retryAfter = Number(res.headers.get("retry-after"));
        if (!(retryAfter >= 1)) outcome.refusedWithoutRetryAfter++;
        // a well-behaved client waits as told (bounded so the run still ends on time)
        await new Promise((r) => setTimeout(r, Math.min(retryAfter || 1, 2) * 1000));
      } else {
        outcome.other.set(res.status, (outcome.other.get(res.status) ?? 0) + 1);
      }
    }
  };
  const cpuBefore = serverCpuMs(server.process.pid!);
  // every process's probe starts its measured window now (a cluster's primary does not pass signals on)
  for (const pid of processTree(server.process.pid!)) process.kill(pid, "SIGUSR2");
  let peakKb = 0;
  const sampler = setInterval(() => (peakKb = Math.max(peakKb, serverPeakRssKb(server.process.pid!))), 250);
  await Promise.all(Array.from({ length: clients }, (_, i) => client(i)));
  const { health, convert } = await probed;
  const cpuUsed = serverCpuMs(server.process.pid!) - cpuBefore;
  clearInterval(sampler);
  peakKb = Math.max(peakKb, serverPeakRssKb(server.process.pid!));

  const row = (name: string, value: string) => console.log(`${name.padEnd(56)} ${value}`);
  const ms = (list: Array<{ ms: number }>) => list.map((x) => x.ms);
  row("GET /healthz p50 / p99 ms (target p99 <= 50)", `${percentile(ms(health), 50).toFixed(1)} / ${percentile(ms(health), 99).toFixed(1)} (${health.length} requests)`);
  row("GET /convert p50 / p99 ms (target p99 <= 50)", `${percentile(ms(convert), 50).toFixed(1)} / ${percentile(ms(convert), 99).toFixed(1)} (${convert.length} requests)`);
  row("probe answers other than 200 (target 0)", String([...health, ...convert].filter((x) => x.status !== 200).length));
  row("bulks completed / 503 with Retry-After", `${outcome.completed} / ${outcome.refused}`);
  row("bulk round trip p50 / p99 ms (completed)", `${percentile(outcome.bulkMs, 50).toFixed(0)} / ${percentile(outcome.bulkMs, 99).toFixed(0)}`);
  row("bulks answered otherwise (target 0)", String(outcome.refusedWithoutRetryAfter + [...outcome.other.values()].reduce((a, b) => a + b, 0)) + (outcome.other.size ? ` ${JSON.stringify([...outcome.other])}` : ""));
  row("server peak RSS MB (target <= 600)", (peakKb / 1024).toFixed(0));
  row("server CPU ms per completed bulk (all its work / completed)", outcome.completed ? (cpuUsed / outcome.completed).toFixed(0) : "-");
  row("load average (1 min) at the end", loadavg()[0]!.toFixed(2));
} finally {
  await server.stop();
  await backend.dispose();
}
if (existsSync(loopProbe)) {
  type Pauses = { count: number; totalMs: number; p50: number; max: number; over20: number };
  // one line per server (process or thread); a group's primary (which serves nothing) is left out
  type Inside = { serving: boolean; delayP99: number; delayMax: number; minor: Pauses; major: Pauses };
  const lines = readFileSync(loopProbe, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line) as Inside);
  const serving = lines.filter((inside) => inside.serving);
  rmSync(loopProbe);
  const pauses = (p: Pauses) => `${p.count}, ${p.totalMs.toFixed(0)} ms in all, p50 ${p.p50.toFixed(1)} / max ${p.max.toFixed(1)} ms, ${p.over20} over 20 ms`;
  serving.forEach((inside, i) => {
    const of = serving.length > 1 ? ` (server ${i + 1})` : "";
    console.log(`${`server event-loop delay p99 / max ms${of}`.padEnd(56)} ${inside.delayP99.toFixed(1)} / ${inside.delayMax.toFixed(1)}`);
    console.log(`${`server minor GC pauses${of}`.padEnd(56)} ${pauses(inside.minor)}`);
    console.log(`${`server major GC pauses${of}`.padEnd(56)} ${pauses(inside.major)}`);
  });
}
