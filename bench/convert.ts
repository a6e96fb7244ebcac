/**
 * `ipatlas convert` benchmark: addresses per second and peak RSS of the real command (bin/ipatlas.js,
 * local engine, NDJSON to /dev/null) on files of random IPv4 addresses, with the CPU time the
 * process used (a figure that still means something on a busy machine). Run on two sizes,
 * the peak RSS shows that memory does not grow with the input.
 *
 *   npx tsx bench/convert.ts [--lines 1000000,4000000] [--format ndjson|csv|json]
 */
import { spawn } from "node:child_process";
import { createWriteStream, mkdtempSync, openSync, rmSync } from "node:fs";
import { once } from "node:events";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { mulberry32 } from "../test/helpers/random-addresses.js";
import { cpuMs, peakRssKb } from "./_proc.js";

const { values } = parseArgs({
  options: { lines: { type: "string", default: "1000000,4000000" }, format: { type: "string", default: "ndjson" } },
});
const ROOT = resolve(import.meta.dirname, "..");
const dir = mkdtempSync(join(tmpdir(), "ipatlas-bench-convert-"));

/** Random IPv4 text, reserved ranges included (they are answered too, without a lookup): the engine decides. */
async function writeAddresses(path: string, count: number): Promise<void> {
  const next = mulberry32(count);
  const out = createWriteStream(path);
  let chunk = "";
  for (let i = 0; i < count; i++) {
    const n = next();
    chunk += `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}\n`;
    if (chunk.length > 1 << 16) {
      if (!out.write(chunk)) await once(out, "drain");
      chunk = "";
    }
  }
  out.end(chunk);
  await once(out, "finish");
}

/** a /proc figure of a process polled until it exits: 0 once it is gone */
function whileAlive(read: (pid: number) => number, pid: number): number {
  try {
    return read(pid);
  } catch {
    return 0;
  }
}

async function runConvert(file: string): Promise<{ seconds: number; peakMb: number; cpu: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, [join(ROOT, "bin/ipatlas.js"), "convert", file, "--format", values.format!, "--data-dir", dir], {
    stdio: ["ignore", openSync("/dev/null", "w"), "inherit"],
    env: { ...process.env, IPATLAS_LOG_LEVEL: "warn" },
  });
  let peakMb = 0;
  let cpu = 0;
  const poll = setInterval(() => {
    peakMb = Math.max(peakMb, whileAlive(peakRssKb, child.pid!) / 1024);
    cpu = Math.max(cpu, whileAlive(cpuMs, child.pid!) / 1000);
  }, 25);
  const [code] = (await once(child, "exit")) as [number | null];
  clearInterval(poll);
  if (code !== 0) throw new Error(`ipatlas convert exited with ${code}`);
  return { seconds: (performance.now() - started) / 1000, peakMb, cpu };
}

try {
  // warm-up: builds the bundled index cache in the data dir, so the runs below measure converting
  const warm = join(dir, "warm.txt");
  await writeAddresses(warm, 1000);
  await runConvert(warm);
  for (const lines of values.lines!.split(",").map(Number)) {
    const file = join(dir, `addresses-${lines}.txt`);
    await writeAddresses(file, lines);
    const { seconds, peakMb, cpu } = await runConvert(file);
    console.log(
      `convert ${lines.toLocaleString("en")} random IPv4 (${values.format}, local engine, whole process incl. start): ` +
        `${Math.round(lines / seconds).toLocaleString("en")} addresses/s, ${seconds.toFixed(1)} s ` +
        `(CPU ${cpu.toFixed(1)} s: ${Math.round(lines / Math.max(cpu, 0.01)).toLocaleString("en")} addresses per CPU-second), peak RSS ${Math.round(peakMb)} MB`,
    );
    rmSync(file);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
