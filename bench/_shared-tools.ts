/**
 * The load tools beside the project, not in it (`../shared/`, or one level further up from a
 * worktree): side-by-side.sh and its wrk script, echoip, and whether wrk is installed. run.ts and
 * ceiling.ts find them the same way.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");

/** the first of `override` and `../shared/<path>` (or `../../shared/<path>`) that exists */
export function sharedTool(path: string, override?: string): string | undefined {
  return [override, resolve(root, "../shared", path), resolve(root, "../../shared", path)].find((candidate): candidate is string => !!candidate && existsSync(candidate));
}

export const hasWrk = spawnSync("sh", ["-c", "command -v wrk"]).status === 0;
