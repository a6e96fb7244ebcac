/**
 * What Linux's /proc says of one process, for the benches' memory and CPU figures. Each throws
 * when the process is gone; callers that poll a process until it exits catch that.
 */
import { readFileSync } from "node:fs";

/** the process's peak resident set so far (VmHWM), in kB */
export function peakRssKb(pid: number): number {
  return Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
}

/** CPU time the process has used, all its threads, in ms (clock ticks of 1/100 s on Linux) */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}
