/**
 * `ipatlas <command>` (docs/api.md#command-line). Finds the command, parses its options strictly,
 * runs it and prints either text or, with --json, exactly one JSON document. Bad arguments (unknown
 * option, missing value, unknown id, invalid plan or origin) print one line on stderr and exit 2.
 */
import { parseArgs } from "node:util";
import { ConfigError, loadConfig } from "../config.js";
import { createAdminServices, ServiceError, type AdminServices } from "../services/index.js";
import type { Storage } from "../storage/types.js";
import { UsageError, type Command, type CommandContext } from "./command.js";
import { commandGroups } from "./commands/index.js";
import { openStorage } from "../open-storage.js";

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: NodeJS.ProcessEnv;
}

const defaultIo: CliIo = {
  stdout: (text) => process.stdout.write(text.endsWith("\n") ? text : text + "\n"),
  stderr: (text) => process.stderr.write(text.endsWith("\n") ? text : text + "\n"),
  env: process.env,
};

const GLOBAL_OPTIONS = {
  json: { type: "boolean" },
  "data-dir": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

const commands = (): Command[] => commandGroups.flat();

function usageText(): string {
  const lines = commands().map((command) => `  ipatlas ${[...command.words, command.usage].filter(Boolean).join(" ")}\n      ${command.summary}`);
  return [
    "Usage: ipatlas <command> [options] [--json] [--data-dir DIR]",
    "",
    "Commands:",
    ...lines,
    "",
    "Every command honours --data-dir (or IPATLAS_DATA_DIR, default ./data) and DATABASE_URL.",
    "With --json a command prints exactly one JSON document.",
  ].join("\n");
}

function findCommand(argv: string[]): Command | null {
  const matches = commands().filter((command) => command.words.every((word, i) => argv[i] === word));
  return matches.sort((a, b) => b.words.length - a.words.length)[0] ?? null;
}

function parseCommandArgs(command: Command, rest: string[]) {
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      options: { ...GLOBAL_OPTIONS, ...Object.fromEntries(Object.entries(command.options ?? {}).map(([name, spec]) => [name, { type: spec.type }])) },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message.split("\n")[0]!);
  }
  const { json, "data-dir": dataDir, help, ...options } = parsed.values as Record<string, string | boolean | undefined>;
  const names = command.positionals ?? [];
  if (parsed.positionals.length !== names.length) {
    const what = parsed.positionals.length < names.length ? `missing <${names[parsed.positionals.length]}>` : `unexpected argument "${parsed.positionals[names.length]}"`;
    throw new UsageError(`${what}; usage: ipatlas ${command.words.join(" ")} ${command.usage}`);
  }
  for (const [name, spec] of Object.entries(command.options ?? {})) {
    const value = options[name];
    if (spec.required && (value === undefined || value === "" || value === true)) {
      throw new UsageError(`--${name} is required; usage: ipatlas ${command.words.join(" ")} ${command.usage}`);
    }
  }
  const args = Object.fromEntries(names.map((name, i) => [name, parsed.positionals[i]!]));
  return { options, args, json: json === true, dataDir: dataDir as string | undefined, help: help === true };
}

/** `ipatlas --json --data-dir D project list` reads as `ipatlas project list --json --data-dir D`. */
function globalOptionsLast(argv: string[]): string[] {
  const leading: string[] = [];
  let i = 0;
  while (i < argv.length) {
    const arg = argv[i]!;
    if (arg === "--json" || arg.startsWith("--data-dir=")) leading.push(argv[i++]!);
    else if (arg === "--data-dir" && i + 1 < argv.length) leading.push(argv[i++]!, argv[i++]!);
    else break;
  }
  return [...argv.slice(i), ...leading];
}

export async function main(rawArgv: string[], io: CliIo = defaultIo): Promise<number> {
  const argv = globalOptionsLast(rawArgv);
  if (argv[0] === "--help" || argv[0] === "-h" || argv[0] === "help") {
    io.stdout(usageText());
    return 0;
  }
  let storage: Storage | null = null;
  try {
    if (argv.length === 0 || argv[0]!.startsWith("-")) throw new UsageError("missing command; run ipatlas --help");
    const command = findCommand(argv);
    if (!command) throw new UsageError(`unknown command "${argv[0]}"; run ipatlas --help`);
    const parsed = parseCommandArgs(command, argv.slice(command.words.length));
    if (parsed.help) {
      io.stdout(`Usage: ipatlas ${command.words.join(" ")} ${command.usage}\n  ${command.summary}`);
      return 0;
    }
    const config = loadConfig(io.env, {
      dataDir: parsed.dataDir,
      port: typeof parsed.options.port === "string" ? parsed.options.port : undefined,
      host: typeof parsed.options.host === "string" ? parsed.options.host : undefined,
      updateEvery: typeof parsed.options["update-every"] === "string" ? parsed.options["update-every"] : undefined,
    });
    let services: AdminServices | null = null;
    const ctx: CommandContext = {
      options: parsed.options,
      args: parsed.args,
      json: parsed.json,
      config,
      env: io.env,
      async services() {
        storage ??= await openStorage(config);
        services ??= createAdminServices(storage);
        return services;
      },
      stdout: io.stdout,
      stderr: io.stderr,
    };
    const output = await command.run(ctx);
    if (typeof output === "number") return output;
    io.stdout(parsed.json ? JSON.stringify(output.json) : output.text);
    return 0;
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError || error instanceof ServiceError) {
      io.stderr(`ipatlas: ${error.message}`);
      return 2;
    }
    io.stderr(`ipatlas: ${(error as Error)?.message ?? String(error)}`.split("\n")[0]!);
    return 1;
  } finally {
    await (storage as Storage | null)?.close();
  }
}
