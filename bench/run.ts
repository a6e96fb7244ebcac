/**
 * `npm run bench`: runs every bench/*.ts (this file, `*.d.ts` and `_*.ts` aside) one after another, each in its own
 * process so that one bench's memory and JIT state do not colour the next. Pass names to run only
 * some: `npm run bench -- api storage`.
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";

const dir = import.meta.dirname;
const wanted = process.argv.slice(2);
const benches = readdirSync(dir)
  // run.ts itself, type declarations and _helpers are not benches
  .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts") && !file.startsWith("_") && file !== "run.ts")
  .filter((file) => wanted.length === 0 || wanted.includes(file.replace(/\.ts$/, "")))
  .sort();

let failed = 0;
for (const file of benches) {
  console.log(`\n=== bench/${file} ===`);
  const result = spawnSync(process.execPath, ["--import", "tsx", join(dir, file)], { stdio: "inherit" });
  if (result.status !== 0) {
    failed++;
    console.log(`bench/${file} failed with exit code ${result.status}`);
  }
}
process.exitCode = failed ? 1 : 0;
