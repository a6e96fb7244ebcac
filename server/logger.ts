/**
 * The server's logger, on pino: one JSON object per line on stderr, or readable lines
 * (pino-pretty) when stderr is a terminal; IPATLAS_LOG_LEVEL and IPATLAS_LOG_FORMAT choose.
 * stdout stays free for the CLI's JSON. Callers use the small Logger interface below, so the
 * engine and the middlewares do not depend on pino.
 */
import { writeSync } from "node:fs";
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
  // asynchronous: what arrives while a write is in flight goes out together in the next one.
  // SonicBoom's buffer mode: in its string mode it measures the UTF-8 length of the whole pending
  // chunk (up to 16 KiB) again at every write, which flattens that string; under load that was
  // ~10 KB of garbage per access line (docs/api.md "Access logs").
  return linesOfATurn(pino.destination({ dest: 2, sync: false, contentMode: "buffer" }) as unknown as LineStream);
}

/** the part of pino's SonicBoom stream that linesOfATurn uses */
interface LineStream {
  write(chunk: Buffer): boolean;
  flushSync(): void;
}

const QUIET_LEVELS = ['{"level":"info"', '{"level":"debug"', '{"level":"trace"'];
/** what each logger on stderr still holds when the process exits, written then (one listener for all) */
const atExit = new Set<() => void>();

/**
 * The info and debug lines of one turn of the event loop, handed on as one Buffer at its end: under
 * load a turn answers dozens of requests, and a Buffer and a write into SonicBoom per access line
 * cost lookup-only GET ~6% of its throughput (docs/api.md "Access logs"). A louder line (warn,
 * error, fatal) goes at once, after the lines before it; what is left when the process exits
 * is written synchronously, after what the stream still held.
 */
function linesOfATurn(stream: LineStream): DestinationStream {
  let lines: string[] = [];
  let scheduled = false;
  /** the lines held so far, as one Buffer, and none held after */
  const take = () => {
    const bytes = Buffer.from(lines.join(""));
    lines = [];
    return bytes;
  };
  const flush = () => {
    scheduled = false;
    if (lines.length) stream.write(take());
  };
  if (!atExit.size) process.on("exit", () => atExit.forEach((writeLeft) => writeLeft()));
  atExit.add(() => {
    if (!lines.length) return;
    try {
      stream.flushSync(); // the lines before them, if pino's own exit flush has not run yet
    } catch {
      // closed or failed: nothing of it to keep in order
    }
    writeAllSync(2, take());
  });
  return {
    write(line: string) {
      lines.push(line);
      if (!QUIET_LEVELS.some((level) => line.startsWith(level))) return flush();
      if (scheduled) return;
      scheduled = true;
      setImmediate(flush);
    },
  };
}

/**
 * All of `bytes`, however little each write takes: stderr may be a non-blocking pipe, which takes
 * 64 KiB at a time and says EAGAIN while it is full (the reader empties it meanwhile).
 */
function writeAllSync(fd: number, bytes: Buffer): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let at = 0; at < bytes.length; ) {
    try {
      at += writeSync(fd, bytes, at);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
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
