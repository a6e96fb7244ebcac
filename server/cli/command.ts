/**
 * What a CLI command is. Each command group (project, key, website, ...) is one file under
 * commands/ exporting a list of these; commands/index.ts registers the groups.
 */
import type { Config } from "../config.js";
import type { AdminServices } from "../services/index.js";

export interface OptionSpec {
  type: "string" | "boolean";
  required?: boolean;
  description?: string;
}

export interface CommandContext {
  /** the command's own options, by name (global ones like --json are stripped) */
  options: Record<string, string | boolean | undefined>;
  /** the declared positionals, by name */
  args: Record<string, string>;
  json: boolean;
  config: Config;
  env: NodeJS.ProcessEnv;
  /** project/key/website operations on the configured storage, opened on first use */
  services(): Promise<AdminServices>;
  stdout(text: string): void;
  stderr(text: string): void;
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
  /** required positional arguments, in order */
  positionals?: string[];
  /** returns what to print, or an exit code when the command printed itself (serve) */
  run(ctx: CommandContext): Promise<CommandOutput | number>;
}

/** Bad arguments: one line on stderr, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}
