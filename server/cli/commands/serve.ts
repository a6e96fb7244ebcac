/** ipatlas serve [--port 8787] [--host 127.0.0.1] [--threads N|auto | --workers N|auto] [--update-every 24h]: runs until SIGTERM/SIGINT. */
import { availableParallelism } from "node:os";
import { UsageError, type Command } from "../command.js";
import type { RunningGroup } from "../../server-group.js";

const DEFAULT_GROUP_METRICS_PORT = 9464;

export const serveCommands: Command[] = [
  {
    words: ["serve"],
    usage: "[--port 8787] [--host 127.0.0.1] [--threads 1|N|auto | --workers 1|N|auto] [--update-every off|24h]",
    summary: "start the API server (--threads N: N servers in threads of one process sharing the port and the database, --workers N: in N processes, auto: one per core; --update-every: data update schedule, off by default)",
    // --port, --host, --update-every and --metrics(-port) are read into the config by main.ts
    options: {
      port: { type: "string", valueName: "PORT", description: "listen port (default: IPATLAS_PORT, else 8787; 0 picks a free one)" },
      host: { type: "string", valueName: "HOST", description: "listen address (default: IPATLAS_HOST, else 127.0.0.1)" },
      threads: { type: "string", valueName: "N", description: "servers in threads of this process sharing the port (SO_REUSEPORT: Linux, FreeBSD): a number, or auto (one per core; default 1)" },
      workers: { type: "string", valueName: "N", description: "server processes sharing the port: a number, or auto (one per core; default 1)" },
      "update-every": { type: "string", valueName: "INTERVAL", description: "data update schedule, e.g. 24h, or off" },
      metrics: { type: "boolean", description: "Prometheus metrics at /metrics (also IPATLAS_METRICS=1)" },
      "metrics-port": { type: "string", valueName: "PORT", description: "serve /metrics on its own port (IPATLAS_METRICS_PORT; default with --workers or --threads > 1: 9464)" },
    },
    async run(ctx) {
      // One server by default: on the 2-core machine it is measured on, a second one (a process
      // or a thread) adds lookups but few stored conversions, takes the memory past the 600 MB
      // budget under bulk load and slows a GET that waits for the other's SQLite turn
      // (docs/api.md "Running"). `auto` is one per core.
      if (ctx.options.threads !== undefined && ctx.options.workers !== undefined) throw new UsageError("--threads and --workers cannot be combined: pick one");
      const kind = ctx.options.threads !== undefined ? "threads" : "processes";
      const flag = kind === "threads" ? "--threads" : "--workers";
      const asked = kind === "threads" ? ctx.options.threads : ctx.options.workers;
      const servers = asked === undefined ? 1 : asked === "auto" ? availableParallelism() : Number(asked);
      if (!Number.isInteger(servers) || servers < 1 || servers > 64) throw new UsageError(`${flag} must be an integer between 1 and 64`);
      const [{ runServer }, { groupMember, runGroup }] = await Promise.all([import("../../serve.js"), import("../../server-group.js")]);
      if (servers > 1 && ctx.config.metrics) {
        // one scrape for the whole group: the primary sums the servers' metrics on its own port
        const config = { ...ctx.config, metricsPort: ctx.config.metricsPort ?? DEFAULT_GROUP_METRICS_PORT };
        const member = groupMember();
        if (member) {
          if (member.kind === "processes") (await import("../../metrics/metrics.js")).answerClusterScrapes();
          return runGroup({ servers, kind }, () => runServer(config, ctx.env));
        }
        const { startGroupMetrics } = await import("../../metrics/group-metrics.js");
        // threads are scraped through the group, which exists once they are started
        let group: RunningGroup | null = null;
        const scrape = kind === "threads" ? async () => (group ? group.scrape() : []) : undefined;
        const metricsServer = await startGroupMetrics(config, scrape);
        ctx.stderr(`IP Atlas metrics (all ${kind === "threads" ? "threads" : "workers"}) on ${metricsServer.url}/metrics`);
        try {
          return await runGroup({ servers, kind, started: (running) => void (group = running) }, () => runServer(config, ctx.env));
        } finally {
          await metricsServer.close();
        }
      }
      return runGroup({ servers, kind }, () => runServer(ctx.config, ctx.env));
    },
  },
];
