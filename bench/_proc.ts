/**
 * What Linux's /proc says of one process, for the benches' memory and CPU figures. Each throws
 * when the process is gone; callers that poll a process until it exits catch that.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/** the process's peak resident set so far (VmHWM), in kB */
export function peakRssKb(pid: number): number {
  return Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
}

/** a process and its children (the workers of --workers N) */
export function processTree(pid: number): number[] {
  try {
    return [pid, ...execFileSync("pgrep", ["-P", String(pid)], { encoding: "utf8" }).split("\n").filter(Boolean).map(Number)];
  } catch {
    return [pid]; // no children
  }
}

/** what /proc says of each process of the tree, summed; a process gone meanwhile counts 0 */
export function sumOverTree(pid: number, read: (p: number) => number): number {
  return processTree(pid).reduce((sum, p) => {
    try {
      return sum + read(p);
    } catch {
      return sum;
    }
  }, 0);
}

/** user + system CPU of a /proc `stat` file, in ms (clock ticks of 1/100 s on Linux) */
function statCpuMs(path: string): number {
  const fields = readFileSync(path, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** CPU time the process has used, all its threads, in ms */
export function cpuMs(pid: number): number {
  return statCpuMs(`/proc/${pid}/stat`);
}

/** the kinds of thread a Node server runs, by the names Node, V8 and libuv give them */
const THREAD_KINDS: Array<[kind: string, name: RegExp]> = [
  ["main", /^MainThread$/],
  ["worker threads", /^WorkerThread$/],
  ["V8 helpers", /^V8Worker$/],
];

/**
 * CPU time so far by kind of thread, in ms: the main thread (the event loop), the worker threads
 * (SQLite's writer and reader), V8's helpers (the garbage collector's parallel and concurrent
 * work, background compiles) and the rest (libuv's pool). Threads that ended are not counted.
 */
export function cpuMsByThread(pid: number): Record<string, number> {
  const byKind: Record<string, number> = Object.fromEntries([...THREAD_KINDS.map(([kind]) => [kind, 0]), ["other", 0]]);
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${task}/comm`, "utf8").trim();
      const kind = THREAD_KINDS.find(([, pattern]) => pattern.test(name))?.[0] ?? "other";
      byKind[kind]! += statCpuMs(`/proc/${pid}/task/${task}/stat`);
    } catch {
      // the thread ended meanwhile
    }
  }
  return byKind;
}
