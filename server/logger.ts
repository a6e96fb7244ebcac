/** One-line logs on stderr with a level (IPATLAS_LOG_LEVEL); stdout stays free for the CLI's JSON. */
import type { LogLevel } from "./config.js";

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export function createLogger(level: LogLevel, write: (line: string) => void = (line) => process.stderr.write(line + "\n")): Logger {
  const at = (lineLevel: Exclude<LogLevel, "silent">) => (message: string, fields?: Record<string, unknown>) => {
    if (RANK[lineLevel] < RANK[level]) return;
    const extra = fields ? " " + JSON.stringify(fields, (_k, v) => (v instanceof Error ? { message: v.message, stack: v.stack } : v)) : "";
    write(`${new Date().toISOString()} ${lineLevel.toUpperCase()} ${message}${extra}`);
  };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}
