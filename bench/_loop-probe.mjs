// Loaded into the server by bench/concurrency.ts (NODE_OPTIONS=--import): what holds the server's
// event loop, measured inside it, so the figures do not depend on how busy the client is.
// SIGUSR2 starts the measured window; at SIGTERM the figures go to $IPATLAS_LOOP_PROBE as JSON.
import { appendFileSync } from "node:fs";
import { PerformanceObserver, constants, monitorEventLoopDelay } from "node:perf_hooks";
import { isMainThread } from "node:worker_threads";
import cluster from "node:cluster";

if (isMainThread && process.env.IPATLAS_LOOP_PROBE && process.argv.includes("serve")) {
  const delay = monitorEventLoopDelay({ resolution: 2 });
  delay.enable();
  const kinds = { [constants.NODE_PERFORMANCE_GC_MAJOR]: "major", [constants.NODE_PERFORMANCE_GC_MINOR]: "minor" };
  let pauses = { major: [], minor: [] };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) pauses[kinds[entry.detail?.kind]]?.push(entry.duration);
  }).observe({ entryTypes: ["gc"] });
  process.on("SIGUSR2", () => {
    delay.reset();
    pauses = { major: [], minor: [] };
  });
  process.once("SIGTERM", () => {
    const summary = (list) => {
      const sorted = [...list].sort((a, b) => a - b);
      return { count: sorted.length, totalMs: sorted.reduce((a, b) => a + b, 0), p50: sorted[sorted.length >> 1] ?? 0, max: sorted.at(-1) ?? 0, over20: sorted.filter((ms) => ms > 20).length };
    };
    // a line per process: with --workers N the primary (which has workers, and serves nothing) and
    // each worker write one; under --threads N only the main thread, which serves nothing either
    // (preloads do not run in worker threads), so there are no figures from inside
    const threads = process.argv.find((arg, i) => process.argv[i - 1] === "--threads" || arg.startsWith("--threads="))?.replace("--threads=", "");
    const serving = !((cluster.isPrimary && Object.keys(cluster.workers ?? {}).length > 0) || (threads !== undefined && threads !== "1"));
    const figures = { serving, delayP99: delay.percentile(99) / 1e6, delayMax: delay.max / 1e6, minor: summary(pauses.minor), major: summary(pauses.major) };
    appendFileSync(process.env.IPATLAS_LOOP_PROBE, `${JSON.stringify(figures)}\n`);
  });
}
