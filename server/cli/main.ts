/**
 * `ipatlas <command>` (docs/api.md#command-line) on commander: the commands of commands/ become
 * a program with `--help` on every command and group, typo suggestions, and strict options and
 * arguments. A command prints either text or, with --json, exactly one JSON document. Bad
 * arguments print one line on stderr and exit 2; anything unexpected exits 1 (EXIT).
 */
import { readFileSync } from "node:fs";
import { Command as Program, CommanderError, Option } from "commander";
import { ConfigError, loadConfig } from "../config.js";
import { createAdminServices, ServiceError, type AdminServices } from "../services/index.js";
import type { Storage } from "../storage/types.js";
import { EXIT, UsageError, type CliStreams, type Command, type CommandContext } from "./command.js";
import { commandGroups, groupSummaries } from "./commands/index.js";
import { newDatabaseWarning, openStorage } from "../open-storage.js";

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: NodeJS.ProcessEnv;
  /** the raw streams; default: the process's */
  streams?: CliStreams;
}

const line = (write: (text: string) => void) => (text: string) => write(text.endsWith("\n") ? text : text + "\n");

const defaultIo: CliIo = {
  stdout: line((text) => process.stdout.write(text)),
  stderr: line((text) => process.stderr.write(text)),
  env: process.env,
};

const processStreams = (): CliStreams => ({
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  stderrIsTTY: process.stderr.isTTY === true,
});

const VERSION = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;

const FOOTER = `
Every command honours --data-dir (or IPATLAS_DATA_DIR, default ./data) and DATABASE_URL.
With --json a command prints exactly one JSON document.
Exit codes: 0 done, 1 unexpected failure (e.g. database unreachable), 2 bad arguments or input.
Run ipatlas <command> --help for a command's options.`;

/** The command that was picked and how commander parsed it. */
interface Picked {
  command: Command;
  options: Record<string, string | boolean | undefined>;
  args: Record<string, string>;
  rest: string[];
}

function optionFlags(name: string, spec: NonNullable<Command["options"]>[string]): string {
  const long = `${spec.short ? `-${spec.short}, ` : ""}--${name}`;
  return spec.type === "boolean" ? long : `${long} <${spec.valueName ?? name.toUpperCase()}>`;
}

function argumentSyntax(name: string): string {
  if (name.endsWith("...")) return `<${name}>`;
  if (name.endsWith("?")) return `[${name.slice(0, -1)}]`;
  return `<${name}>`;
}

/** Builds the commander program; `onPick` receives the command the arguments chose. */
function buildProgram(commands: Command[], io: CliIo, onPick: (picked: Picked) => void, onGroup: (words: string[]) => void): Program {
  const program = new Program("ipatlas")
    .description("IP Atlas: self-hostable IP geolocation. API server, keys, websites, and local lookups.")
    .usage("<command> [options]")
    .version(VERSION, "-V, --version", "print the version")
    .option("--json", "print exactly one JSON document")
    .option("--data-dir <DIR>", "data dir (default: IPATLAS_DATA_DIR, else ./data)")
    .helpOption("-h, --help", "show help")
    .helpCommand("help [command]", "show help for a command")
    .addHelpText("after", `\nAll commands:\n${commands.map((c) => `  ipatlas ${[...c.words, c.usage].filter(Boolean).join(" ")}`).join("\n")}\n${FOOTER}`)
    .showSuggestionAfterError(true)
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout(text),
      // only a group's help, shown when its subcommand is missing: main prints one line instead
      writeErr: () => {},
      // commander's messages are "error: …\n(Did you mean …?)": one line with our prefix
      outputError: (text) => io.stderr(`ipatlas: ${text.replace(/^error: /, "").trim().replace(/\s*\n\s*/g, " ")}`),
    });
  program.hook("preSubcommand", (_parent, sub) => onGroup(wordsOf(sub)));

  const groups = new Map<string, Program>();
  const groupOf = (words: string[]): Program => {
    if (words.length === 0) return program;
    const key = words.join(" ");
    let group = groups.get(key);
    if (!group) {
      group = groupOf(words.slice(0, -1)).command(words.at(-1)!).description(groupSummaries[key] ?? "");
      group.usage("<command> [options]");
      groups.set(key, group);
    }
    return group;
  };

  for (const command of commands) {
    const leaf = groupOf(command.words.slice(0, -1)).command(command.words.at(-1)!).description(command.summary);
    const specs = Object.entries(command.options ?? {});
    const attributes = new Map<string, string>();
    for (const [name, spec] of specs) {
      const option = new Option(optionFlags(name, spec), (spec.description ?? "") + (spec.required ? " (required)" : ""));
      attributes.set(name, option.attributeName());
      leaf.addOption(option);
    }
    for (const name of command.positionals ?? []) leaf.argument(argumentSyntax(name));
    if (command.help) leaf.addHelpText("after", `\n${command.help}`);
    leaf.action((...received: unknown[]) => {
      const self = received.at(-1) as Program;
      const values = self.opts();
      const options = Object.fromEntries(specs.map(([name]) => [name, values[attributes.get(name)!] as string | boolean | undefined]));
      const names = command.positionals ?? [];
      const args: Record<string, string> = {};
      let rest: string[] = [];
      names.forEach((name, i) => {
        const value = self.processedArgs[i] as string | string[] | undefined;
        if (Array.isArray(value)) rest = value;
        else if (value !== undefined) args[name.replace(/\?$/, "")] = value;
      });
      onPick({ command, options, args, rest });
    });
  }
  return program;
}

function wordsOf(command: Program): string[] {
  const words: string[] = [];
  for (let at: Program | null = command; at?.parent; at = at.parent) words.unshift(at.name());
  return words;
}

function checkRequired(picked: Picked): void {
  for (const [name, spec] of Object.entries(picked.command.options ?? {})) {
    const value = picked.options[name];
    if (spec.required && (value === undefined || value === "" || value === true)) {
      throw new UsageError(`--${name} is required; usage: ipatlas ${picked.command.words.join(" ")} ${picked.command.usage}`);
    }
  }
}

/**
 * Output piped into a reader that stopped early (`ipatlas --help | head -1`) has nowhere to go: a
 * command ends there, quietly and with its exit code so far, as Unix tools do on SIGPIPE (which
 * Node ignores); `serve` goes on serving, its startup lines lost, not its work.
 */
function endOnClosedPipe(serving: () => boolean): void {
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    if (!serving()) process.exit(process.exitCode ?? EXIT.ok);
  });
}

export async function main(argv: string[], io: CliIo = defaultIo): Promise<number> {
  let picked: Picked | null = null;
  // the command as parsed, not a word of argv (`project create --name serve` is no server)
  if (io === defaultIo) endOnClosedPipe(() => picked?.command.words[0] === "serve");
  let group: string[] = [];
  const program = buildProgram(
    commandGroups.flat(),
    io,
    (p) => (picked = p),
    (words) => (group = words),
  );
  let storage: Storage | null = null;
  try {
    if (!argv.some((arg) => !arg.startsWith("-")) && !argv.some((arg) => /^(-h|--help|-V|--version)$/.test(arg))) {
      throw new UsageError("missing command; run ipatlas --help");
    }
    try {
      await program.parseAsync(argv, { from: "user" });
    } catch (error) {
      if (!(error instanceof CommanderError)) throw error;
      if (error.code === "commander.helpDisplayed" || error.code === "commander.version") return EXIT.ok;
      // `ipatlas help <command>` exits 0; a group without its subcommand exits 1 in commander
      if (error.code === "commander.help" && error.exitCode === 0) return EXIT.ok;
      if (error.code === "commander.help") {
        const where = ["ipatlas", ...group].join(" ");
        throw new UsageError(`missing command; run ${where} --help`);
      }
      return EXIT.usage; // commander has printed the one line
    }
    if (!picked) throw new UsageError("missing command; run ipatlas --help");
    const chosen: Picked = picked;
    checkRequired(chosen);

    const globals = program.opts<{ json?: boolean; dataDir?: string }>();
    const config = loadConfig(io.env, {
      dataDir: globals.dataDir,
      port: typeof chosen.options.port === "string" ? chosen.options.port : undefined,
      host: typeof chosen.options.host === "string" ? chosen.options.host : undefined,
      metrics: chosen.options.metrics === true,
      metricsPort: typeof chosen.options["metrics-port"] === "string" ? chosen.options["metrics-port"] : undefined,
      updateEvery: typeof chosen.options["update-every"] === "string" ? chosen.options["update-every"] : undefined,
    });
    let services: AdminServices | null = null;
    const ctx: CommandContext = {
      options: chosen.options,
      args: chosen.args,
      rest: chosen.rest,
      json: globals.json === true,
      config,
      env: io.env,
      async services() {
        if (!storage) {
          const warning = await newDatabaseWarning(config);
          if (warning) io.stderr(warning);
          storage = await openStorage(config);
        }
        services ??= createAdminServices(storage);
        return services;
      },
      stdout: io.stdout,
      stderr: io.stderr,
      streams: io.streams ?? processStreams(),
    };
    const output = await chosen.command.run(ctx);
    if (typeof output === "number") return output;
    io.stdout(ctx.json ? JSON.stringify(output.json) : output.text);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError || error instanceof ServiceError) {
      io.stderr(`ipatlas: ${error.message}`);
      return EXIT.usage;
    }
    io.stderr(`ipatlas: ${(error as Error)?.message ?? String(error)}`.split("\n")[0]!);
    return EXIT.failure;
  } finally {
    await (storage as Storage | null)?.close();
  }
}
