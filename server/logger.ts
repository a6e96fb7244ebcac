/**
 * The server's logger, on pino: one JSON object per line on stderr, or readable lines
 * (pino-pretty) when stderr is a terminal; IPATLAS_LOG_LEVEL and IPATLAS_LOG_FORMAT choose.
 * stdout stays free for the CLI's JSON. Callers use the small Logger interface below, so the
 * engine and the middlewares do not depend on pino.
 */
import { createRequire } from "node:module";
import { Writable } from "node:stream";
import { pino, type DestinationStream } from "pino";
import type PinoPretty from "pino-pretty";
import type { LogFormat, LogLevel } from "./config.js";

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /**
   * An info line whose fields the caller has written as JSON itself: `members` is what goes
   * between the level and time and the message, e.g. `"status":200,"path":"/x"`. For the access
   * log's line, made once per request, where pino's generic serialisation cost a lookup-only
   * request about a tenth of its throughput (docs/performance.md).
   */
  infoLine(message: string, members: string): void;
}

export interface LoggerOptions {
  /** where lines go (tests); default stderr */
  write?: (line: string) => void;
  /** default: pretty on a terminal, json otherwise */
  format?: LogFormat | null;
}

function destination(format: LogFormat, write: ((line: string) => void) | undefined): DestinationStream {
  if (format === "pretty") {
    // loaded here, not at the top: a server logging JSON does not load its ~30 modules at start
    const pretty = createRequire(import.meta.url)("pino-pretty") as typeof PinoPretty;
    return pretty({
      colorize: !write && process.stderr.isTTY === true,
      translateTime: "SYS:HH:MM:ss.l",
      ignore: "pid,hostname",
      singleLine: true,
      destination: write ? new Writable({ write: (chunk, _encoding, done) => (write(String(chunk).replace(/\n$/, "")), done()) }) : 2,
    });
  }
  if (write) return { write: (text: string) => write(text.replace(/\n$/, "")) };
  // asynchronous: lines that arrive while a write is in flight go out together in the next one,
  // and nothing waits for a fill level (an error line must show at once); flushed on exit.
  // SonicBoom's buffer mode, fed a Buffer per line: in its string mode it measures the UTF-8
  // length of the whole pending chunk (up to 16 KiB) again at every line, which flattens that
  // string; under load that was ~10 KB of garbage per access line (docs/api.md "Access logs").
  const stream = pino.destination({ dest: 2, sync: false, contentMode: "buffer" }) as unknown as { write(chunk: Buffer): boolean };
  return { write: (line: string) => void stream.write(Buffer.from(line)) };
}

/**
 * pino's isoTime, made once per millisecond: formatting a Date costs ~2 µs, and under load every
 * request's access line would format one.
 */
let timeMs = -1;
let timeField = "";
function isoTimeField(): string {
  const now = Date.now();
  if (now !== timeMs) {
    timeMs = now;
    timeField = `,"time":"${new Date(now).toISOString()}"`;
  }
  return timeField;
}

export function createLogger(level: LogLevel, writeOrOptions?: ((line: string) => void) | LoggerOptions): Logger {
  const options: LoggerOptions = typeof writeOrOptions === "function" ? { write: writeOrOptions } : (writeOrOptions ?? {});
  const format = options.format ?? (options.write || process.stderr.isTTY !== true ? "json" : "pretty");
  const dest = destination(format, options.write);
  const logger = pino(
    {
      level,
      base: undefined, // no pid/hostname on every line: the process manager adds its own
      timestamp: isoTimeField,
      formatters: { level: (label) => ({ level: label }) },
      serializers: { error: pino.stdSerializers.err },
    },
    dest,
  );
  const at = (method: "debug" | "info" | "warn" | "error") => (message: string, fields?: Record<string, unknown>) =>
    fields ? logger[method](fields, message) : logger[method](message);
  // the line pino writes: level, time, the fields, msg (the pretty format reads it like pino's own)
  const infoLine = (message: string, members: string) => {
    if (logger.isLevelEnabled("info")) dest.write(`{"level":"info"${isoTimeField()},${members},"msg":${JSON.stringify(message)}}\n`);
  };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error"), infoLine };
}
