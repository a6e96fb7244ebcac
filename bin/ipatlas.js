#!/usr/bin/env node
// The `ipatlas` command (docs/api.md "Command line"). The sources are TypeScript; tsx compiles
// them on load so a plain clone runs without a build step.
import { readFileSync } from "node:fs";

// better-sqlite3 13 crashes rather than failing cleanly on an unsupported Node: say it first
const [major, minor] = process.versions.node.split(".").map(Number);
if (!((major === 22 && minor >= 13) || (major === 24 && minor >= 11) || major > 24)) {
  const { engines } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  process.stderr.write(`ipatlas needs Node ${engines.node} (Node 24 LTS or 22 LTS); this is Node ${process.versions.node}\n`);
  process.exit(2);
}

// V8's compiled code of the modules is kept on disk from one run to the next (Node's compile
// cache; docs/api.md "Running"): `serve` spends ~7% less CPU before it is ready. It never fails
// a start: a directory that cannot be written is passed over. Set before the restart below, so
// that worker threads, `--workers` processes and the restarted `serve` take it from the
// environment from their first line. An operator's NODE_COMPILE_CACHE is Node's own to apply.
if (process.env.NODE_COMPILE_CACHE === undefined) {
  const { enableCompileCache } = await import("node:module");
  const directory = enableCompileCache?.()?.directory;
  if (directory) process.env.NODE_COMPILE_CACHE = directory;
}

// The server runs with a 4 MiB young generation (semi-space): a bulk's short-lived data is then
// collected in ~1 ms scavenges instead of ~12-27 ms ones, and the peak RSS under 50 clients'
// bulks was 655 MB instead of 976 (docs/api.md "Memory"). V8 takes the size only at start, so
// `serve` starts Node again with it, in the same process; an operator's own setting wins.
const SEMI_SPACE = "--max-semi-space-size=4";
const ownFlags = `${process.execArgv.join(" ")} ${process.env.NODE_OPTIONS ?? ""}`;
// (not on Windows, which has no execve: there the server keeps V8's default)
if (process.argv[2] === "serve" && !ownFlags.includes("--max-semi-space-size") && typeof process.execve === "function" && process.platform !== "win32") {
  try {
    process.execve(process.execPath, [process.execPath, SEMI_SPACE, ...process.execArgv, ...process.argv.slice(1)], process.env);
  } catch {
    // the platform refused: serve with V8's default young generation
  }
}

// It also lets the old generation grow by what survived the last full collection before the next
// (to twice it), instead of V8's own factor (up to 4): under 50 clients' bulks the peak RSS stays
// under 600 MB with ~26 full collections in 20 s, each ~10 ms (docs/api.md "Memory"). V8 reads
// this one at every collection, so it is set here, in place; a V8 that does not know it prints a
// warning and goes on.
if (process.argv[2] === "serve" && !ownFlags.includes("--heap-growing-percent")) {
  const { setFlagsFromString } = await import("node:v8");
  setFlagsFromString("--heap-growing-percent=100");
}

const { register } = await import("tsx/esm/api");
register();
const { main } = await import("../server/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
