/** ipatlas serve [--port 8787] [--host 127.0.0.1] [--workers N]: runs until SIGTERM/SIGINT. */
import { UsageError, type Command } from "../command.js";

export const serveCommands: Command[] = [
  {
    words: ["serve"],
    usage: "[--port 8787] [--host 127.0.0.1] [--workers 1]",
    summary: "start the API server (--workers N: N processes sharing the port and the database)",
    // --port and --host are read into the config by main.ts
    options: {
      port: { type: "string", valueName: "PORT", description: "listen port (default: IPATLAS_PORT, else 8787; 0 picks a free one)" },
      host: { type: "string", valueName: "HOST", description: "listen address (default: IPATLAS_HOST, else 127.0.0.1)" },
      workers: { type: "string", valueName: "N", description: "server processes sharing the port (default 1)" },
    },
    async run(ctx) {
      const workers = ctx.options.workers === undefined ? 1 : Number(ctx.options.workers);
      if (!Number.isInteger(workers) || workers < 1 || workers > 64) throw new UsageError("--workers must be an integer between 1 and 64");
      const [{ runServer }, { runClustered }] = await Promise.all([import("../../serve.js"), import("../../cluster.js")]);
      return runClustered({ workers }, () => runServer(ctx.config, ctx.env));
    },
  },
];
