/** ipatlas serve [--port 8787] [--host 127.0.0.1] [--workers N|auto] [--update-every 24h]: runs until SIGTERM/SIGINT. */
import { availableParallelism } from "node:os";
import { UsageError, type Command } from "../command.js";

export const serveCommands: Command[] = [
  {
    words: ["serve"],
    usage: "[--port 8787] [--host 127.0.0.1] [--workers 1|N|auto] [--update-every 24h|off]",
    summary: "start the API server (--workers N: N processes sharing the port and the database, auto: one per core; --update-every: data update schedule)",
    // --port, --host and --update-every are read into the config by main.ts
    options: { port: { type: "string" }, host: { type: "string" }, workers: { type: "string" }, "update-every": { type: "string" } },
    async run(ctx) {
      // One process by default: on the 2-core machine it is measured on, a second worker did not
      // add throughput and doubles the memory (docs/api.md). `auto` is one per core.
      const workers = ctx.options.workers === undefined ? 1 : ctx.options.workers === "auto" ? availableParallelism() : Number(ctx.options.workers);
      if (!Number.isInteger(workers) || workers < 1 || workers > 64) throw new UsageError("--workers must be an integer between 1 and 64");
      const [{ runServer }, { runClustered }] = await Promise.all([import("../../serve.js"), import("../../cluster.js")]);
      return runClustered({ workers }, () => runServer(ctx.config, ctx.env));
    },
  },
];
