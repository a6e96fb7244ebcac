/**
 * `npm run bench`: runs every bench/*.ts (this file, `*.d.ts` and `_*.ts` aside) one after another, each in its own
 * process so that one bench's memory and JIT state do not colour the next. Pass names to run only
 * some: `npm run bench -- api storage`. With wrk installed it also runs the side-by-side against
 * echoip (`../shared/bench/side-by-side.sh`, or IPATLAS_SIDE_BY_SIDE=path; name `side-by-side`).
 * With a PostgreSQL URL set (DATABASE_URL or TEST_DATABASE_URL, bench/_backend.ts) the benches
 * whose targets hold on both backends run on SQLite and then on PostgreSQL.
 * Every line that names a target is gathered into one table at the end.
 */
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { benchDatabaseUrl } from "./_backend.js";
import { hasWrk, sharedTool } from "./_shared-tools.js";

const dir = import.meta.dirname;
const root = resolve(dir, "..");
const wanted = process.argv.slice(2);
const benches = readdirSync(dir)
  // run.ts itself, type declarations and _helpers are not benches
  .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts") && !file.startsWith("_") && file !== "run.ts")
  .filter((file) => wanted.length === 0 || wanted.includes(file.replace(/\.ts$/, "")))
  .sort();
/** the benches that take `--backend` for targets set on both backends */
const onBothBackends = new Set(["api.ts", "concurrency.ts", "storage.ts"]);

/** Runs a command with its output shown as it comes, and returns that output. */
function run(command: string, args: string[], cwd = root): Promise<{ status: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const show = (chunk: Buffer) => {
      output += chunk;
      process.stdout.write(chunk);
    };
    child.stdout.on("data", show);
    child.stderr.on("data", (chunk: Buffer) => process.stderr.write(chunk));
    child.once("close", (status) => done({ status, output }));
  });
}

const targets: Array<[string, string]> = [];
/** lines like `name (target <= 60)   value`, or with the target after the value */
function gather(bench: string, output: string): void {
  for (const line of output.split("\n")) if (/target/i.test(line)) targets.push([bench, line.trim().replace(/\s{2,}/g, "  ")]);
}

let failed = 0;
for (const file of benches) {
  const backends = !onBothBackends.has(file) ? [null] : benchDatabaseUrl ? ["sqlite", "postgres"] : ["sqlite"];
  for (const backend of backends) {
    const name = file.replace(/\.ts$/, "") + (backend === "postgres" ? " (PostgreSQL)" : "");
    console.log(`\n=== bench/${file}${backend ? ` --backend ${backend}` : ""} ===`);
    const result = await run(process.execPath, ["--import", "tsx", join(dir, file), ...(backend ? ["--backend", backend] : [])]);
    gather(name, result.output);
    if (result.status !== 0) {
      failed++;
      console.log(`bench/${name} failed with exit code ${result.status}`);
    }
  }
}

const sideBySide = sharedTool("bench/side-by-side.sh", process.env.IPATLAS_SIDE_BY_SIDE);
if ((wanted.length === 0 || wanted.includes("side-by-side")) && sideBySide && hasWrk) {
  console.log(`\n=== ${sideBySide} (against echoip, Go) ===`);
  const { output } = await run("bash", [sideBySide, "8"]);
  const figure = (name: string) => new RegExp(`${name}\\s+([\\d.]+) req/s\\s+p99 (\\S+)`).exec(output);
  const echo = figure("echoip GET /json");
  const lookup = figure("IP Atlas GET /bench/lookup");
  const stored = figure("IP Atlas GET /convert");
  if (echo && lookup && stored) {
    const ratio = (m: RegExpExecArray) => (Number(m[1]) / Number(echo[1])).toFixed(2);
    targets.push(["side-by-side", `lookup-only / echoip req/s ${ratio(lookup)} (target >= 0.75), p99 ${lookup[2]} (target <= 20ms)`]);
    targets.push(["side-by-side", `stored GET /convert / echoip req/s ${ratio(stored)} (target >= 0.5), p99 ${stored[2]} (target <= 20ms)`]);
  } else {
    failed++;
    console.log("side-by-side printed no figures");
  }
} else if (wanted.length === 0) {
  console.log(`\nside-by-side against echoip skipped: ${hasWrk ? "script not found (IPATLAS_SIDE_BY_SIDE=path)" : "wrk is not installed"}`);
}

if (targets.length) {
  console.log("\n=== targets ===");
  const width = Math.max(...targets.map(([bench]) => bench.length));
  for (const [bench, line] of targets) console.log(`${bench.padEnd(width)}  ${line}`);
}
process.exitCode = failed ? 1 : 0;
