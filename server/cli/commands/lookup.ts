/**
 * ipatlas lookup <ip…> and ipatlas convert <file|->: geolocation without a server. The engine runs
 * in this process, so nothing is stored, counted or sent anywhere; `--server URL --key K` goes
 * through a server's bulk API instead (stored and counted there).
 */
import { createReadStream, existsSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { parseSelect } from "../../../lib/select/index.js";
import type { IpObjectPath } from "../../../lib/schemas/ip-object.js";
import { publicBaseUrl } from "../../config.js";
import { createLogger } from "../../logger.js";
import { EXIT, UsageError, type Command, type CommandContext, type OptionSpec } from "../command.js";
import { FORMATS, recordFormat, type Format } from "../convert/formats.js";
import { terminalProgress } from "../convert/progress.js";
import type { AddressSource } from "../convert/sources.js";
import { convertStream } from "../convert/stream.js";

const sharedOptions: Record<string, OptionSpec> = {
  fields: {
    type: "string",
    valueName: "PATHS",
    description: "comma-separated select paths of the API (e.g. ip,continent.country.code,asn.number); default: all",
  },
  format: { type: "string", valueName: "FORMAT", description: "" },
  server: { type: "string", valueName: "URL", description: "use this IP Atlas server's bulk API instead of the local data (stored and counted there)" },
  key: { type: "string", valueName: "KEY", description: "secret key for --server (default: IPATLAS_API_KEY)" },
};

function fieldsOf(ctx: CommandContext): IpObjectPath[] | null {
  const raw = ctx.options.fields;
  if (raw === undefined) return null;
  const parsed = parseSelect([String(raw)]);
  if (!parsed.ok) throw new UsageError(`unknown --fields item(s): ${parsed.invalidFields.join(", ")}; the select paths are listed in docs/api.md`);
  return parsed.paths;
}

function formatOf(ctx: CommandContext, fallback: Format, allowed: readonly Format[]): Format {
  const raw = ctx.options.format ?? (ctx.json ? "json" : fallback);
  if (!allowed.includes(raw as Format)) throw new UsageError(`--format must be one of ${allowed.join(", ")}, got "${raw}"`);
  return raw as Format;
}

/** The engine, or the server's bulk API with --server. `close` releases what was opened. */
async function openSource(ctx: CommandContext): Promise<{ source: AddressSource; close(): Promise<void> }> {
  // the sources (with the API client, ky) are loaded by the commands that convert, not at every start
  const { engineSource, serverSource } = await import("../convert/sources.js");
  if (ctx.options.server !== undefined) {
    const baseUrl = String(ctx.options.server);
    if (!/^https?:\/\/[^/]+/.test(baseUrl)) throw new UsageError(`--server must be an http(s) URL, got "${baseUrl}"`);
    const apiKey = typeof ctx.options.key === "string" ? ctx.options.key : ctx.env.IPATLAS_API_KEY;
    if (!apiKey) throw new UsageError("--server needs --key (or IPATLAS_API_KEY): a secret key of the project to count against");
    const source = serverSource({
      baseUrl,
      apiKey,
      onWait: (ms, why) => ctx.stderr(`ipatlas: ${why}; retrying in ${(ms / 1000).toFixed(1)} s`),
    });
    return { source, close: async () => {} };
  }
  if (ctx.options.key !== undefined) throw new UsageError("--key is only used with --server");
  const { createGeoEngine } = await import("../../geo/engine/engine.js");
  const { config } = ctx;
  // The bundled index is cached in the data dir when there is one; never create ./data for it.
  const cacheDir = existsSync(config.dataDir) ? config.dataDir : join(tmpdir(), "ipatlas-cache");
  const engine = await createGeoEngine({
    cityDb: config.cityDb,
    asnDb: config.asnDb,
    dataDir: cacheDir,
    publicBaseUrl: () => publicBaseUrl(config, config.port),
    logger: createLogger(config.logLevel, { write: (line) => ctx.stderr(line), format: config.logFormat ?? (ctx.streams.stderrIsTTY ? "pretty" : "json") }),
    reloadIntervalMs: 3_600_000,
  });
  return { source: engineSource(engine), close: () => engine.close() };
}

/** Stdout closed early (`| head`) ends the run quietly, like other Unix tools. */
function isClosedPipe(error: unknown): boolean {
  return (error as NodeJS.ErrnoException)?.code === "EPIPE" || (error as NodeJS.ErrnoException)?.code === "ERR_STREAM_DESTROYED";
}

async function run(ctx: CommandContext, input: Readable, totalBytes: number | null, format: Format): Promise<{ records: number; invalid: number }> {
  const paths = fieldsOf(ctx);
  const { source, close } = await openSource(ctx);
  const output = ctx.streams.stdout;
  const progress = format !== "text" && ctx.streams.stderrIsTTY ? await terminalProgress(ctx.streams.stderr, totalBytes) : null;
  const onError = () => input.destroy();
  output.on("error", onError);
  try {
    return await convertStream({ input, output, source, format: recordFormat(format, paths), progress });
  } catch (error) {
    if (isClosedPipe(error)) return { records: 0, invalid: 0 };
    throw error;
  } finally {
    progress?.stop();
    output.off("error", onError);
    await close();
  }
}

export const lookupCommands: Command[] = [
  {
    words: ["lookup"],
    usage: "<ip...> [--fields PATHS] [--format text|csv|ndjson|json] [--server URL --key KEY]",
    summary: "geolocate addresses with the local data: no server, no quota, nothing stored",
    positionals: ["ip..."],
    options: { ...sharedOptions, format: { ...sharedOptions.format!, description: "text (default), csv, ndjson or json (= --json)" } },
    help: [
      "Exit code 2 when an argument is not an IP address (the others are still printed).",
      "",
      "Examples:",
      "  ipatlas lookup 8.8.8.8 2001:4860:4860::8888",
      "  ipatlas lookup 1.1.1.1 --json --fields ip,continent.country.code,asn.name",
    ].join("\n"),
    async run(ctx) {
      const format = formatOf(ctx, "text", FORMATS);
      const summary = await run(ctx, Readable.from(ctx.rest.map((ip) => ip + "\n")), null, format);
      return summary.invalid > 0 ? EXIT.usage : EXIT.ok;
    },
  },
  {
    words: ["convert"],
    usage: "<file|-> [--fields PATHS] [--format ndjson|csv|json] [--server URL --key KEY]",
    summary: "geolocate a file of addresses or log lines (- = stdin) to CSV, NDJSON or JSON on stdout, streaming",
    positionals: ["file"],
    options: { ...sharedOptions, format: { ...sharedOptions.format!, description: "ndjson (default), csv or json (= --json)" } },
    help: [
      "Each non-empty line gives one record, in order: the line itself when it is one address, else the",
      "first address found in it (access logs), else the line as an invalid input (only `ip` set).",
      "A progress bar with rate and ETA is drawn on stderr when it is a terminal.",
      "",
      "Examples:",
      "  ipatlas convert addresses.txt --format csv --fields ip,continent.country.code > out.csv",
      "  tail -n 100000 access.log | ipatlas convert - > out.ndjson",
      "  ipatlas convert addresses.txt --server https://geo.example.com --key $KEY > out.ndjson",
    ].join("\n"),
    async run(ctx) {
      const format = formatOf(ctx, "ndjson", ["ndjson", "csv", "json"]);
      const file = ctx.args.file!;
      let input: Readable;
      let totalBytes: number | null = null;
      if (file === "-") {
        input = ctx.streams.stdin;
      } else {
        let size: number;
        try {
          const stat = statSync(file);
          if (!stat.isFile()) throw new Error("not a file");
          size = stat.size;
        } catch (error) {
          throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
        }
        input = createReadStream(file, { highWaterMark: 1 << 20 });
        totalBytes = size;
      }
      const started = performance.now();
      const summary = await run(ctx, input, totalBytes, format);
      if (ctx.streams.stderrIsTTY) {
        const seconds = (performance.now() - started) / 1000;
        ctx.stderr(
          `ipatlas: ${summary.records} records in ${seconds.toFixed(1)} s (${Math.round(summary.records / Math.max(seconds, 1e-3))}/s)` +
            (summary.invalid ? `, ${summary.invalid} lines without an address` : ""),
        );
      }
      return EXIT.ok;
    },
  },
];
