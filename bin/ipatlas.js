#!/usr/bin/env node
// The `ipatlas` command (contract §8). The sources are TypeScript; tsx compiles them on load
// so a plain clone runs without a build step.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../server/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
