/**
 * What a CLI command is. Each command group (project, key, website, ...) is one file under
 * commands/ exporting a list of these; commands/index.ts registers the groups. main.ts turns the
 * list into a commander program, so a command only declares its words, options and arguments.
 */
import type { Readable, Writable } from "node:stream";
import type { Config } from "../config.js";
import type { AdminServices } from "../services/index.js";

export interface OptionSpec {
  type: "string" | "boolean";
  /** a missing or empty value is a usage error (checked after --help, so help always works) */
  required?: boolean;
  description?: string;
  /** the value's placeholder in help: `--project <ID>` (default: the option name in capitals) */
  valueName?: string;
  /** one-letter alias: `f` for `-f` */
  short?: string;
}

/** The process's streams, for commands that stream (convert) or draw on a terminal (progress). */
export interface CliStreams {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  /** whether stderr is a terminal (a progress bar is drawn only then) */
  stderrIsTTY: boolean;
}

export interface CommandContext {
  /** the command's own options, by name (global ones like --json are stripped) */
  options: Record<string, string | boolean | undefined>;
  /** the declared positionals, by name */
  args: Record<string, string>;
  /** the values of a variadic last positional (`ip...`), else empty */
  rest: string[];
  json: boolean;
  config: Config;
  env: NodeJS.ProcessEnv;
  /** project/key/website operations on the configured storage, opened on first use */
  services(): Promise<AdminServices>;
  stdout(text: string): void;
  stderr(text: string): void;
  streams: CliStreams;
}

/** `json` is printed with --json, `text` without. */
export interface CommandOutput {
  json: unknown;
  text: string;
}

export interface Command {
  /** words after `ipatlas`: ["project", "create"] */
  words: string[];
  /** the arguments part of the usage line: "--name N [--plan P]" */
  usage: string;
  summary: string;
  options?: Record<string, OptionSpec>;
  /** positional arguments, in order; `name?` is optional, a last `name...` takes one or more */
  positionals?: string[];
  /** lines shown under the command's --help (examples, notes) */
  help?: string;
  /** returns what to print, or an exit code when the command printed itself (serve, convert) */
  run(ctx: CommandContext): Promise<CommandOutput | number>;
}

/** Bad arguments: one line on stderr, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** The exit codes of `ipatlas` (docs/api.md "Command line"). */
export const EXIT = {
  ok: 0,
  /** anything unexpected: database unreachable, a file that cannot be read, a server that keeps failing */
  failure: 1,
  /** bad arguments, bad environment values, unknown ids, refused input */
  usage: 2,
} as const;
