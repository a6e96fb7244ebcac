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

const { register } = await import("tsx/esm/api");
register();
const { main } = await import("../server/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
