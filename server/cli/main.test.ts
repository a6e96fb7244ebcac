import { afterAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "./main.js";
import { commandGroups } from "./commands/index.js";
import { BIN } from "../../test/helpers/server.js";

const dataDir = mkdtempSync(join(tmpdir(), "ipatlas-cli-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function run(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main([...argv, "--data-dir", dataDir], { stdout: (t) => out.push(t), stderr: (t) => err.push(t), env: {} });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

describe("main", () => {
  it("prints one JSON document with --json", async () => {
    const created = await run("project", "create", "--name", "unit", "--json");
    expect(created.code).toBe(0);
    expect(JSON.parse(created.out).project.name).toBe("unit");
    const list = await run("project", "list", "--json");
    expect(JSON.parse(list.out).projects).toHaveLength(1);
  });

  it("exit 2 with one line on stderr for bad arguments", async () => {
    for (const argv of [["nope"], ["project", "create"], ["project", "create", "--name"], ["key", "list", "--project", "x", "--extra"], ["project", "plan", "a"], ["serve", "--workers", "0"], ["serve", "--threads", "x"], ["serve", "--threads", "2", "--workers", "2"]]) {
      const result = await run(...argv);
      expect(result.code, argv.join(" ")).toBe(2);
      expect(result.out).toBe("");
      expect(result.err.split("\n"), argv.join(" ")).toHaveLength(1);
      expect(result.err).toMatch(/^ipatlas: /);
    }
  });

  it("takes --json and --data-dir before the command too", async () => {
    const out: string[] = [];
    const code = await main(["--json", "--data-dir", dataDir, "project", "list"], { stdout: (t) => out.push(t), stderr: () => {}, env: {} });
    expect(code).toBe(0);
    expect(JSON.parse(out.join("")).projects).toBeInstanceOf(Array);
  });

  it("exit 2 with one line on stderr without a command", async () => {
    for (const argv of [[], ["--json"]]) {
      const err: string[] = [];
      const code = await main(argv, { stdout: () => {}, stderr: (t) => err.push(t), env: {} });
      expect(code).toBe(2);
      expect(err).toEqual(["ipatlas: missing command; run ipatlas --help"]);
    }
  });

  it("exit 2 for a bad environment value", async () => {
    const code = await main(["project", "list", "--data-dir", dataDir], { stdout: () => {}, stderr: () => {}, env: { IPATLAS_LOG_LEVEL: "loud" } });
    expect(code).toBe(2);
  });

  it("--help lists every command group", async () => {
    const help = await run("--help");
    expect(help.code).toBe(0);
    for (const group of ["serve", "project create", "key roll", "website add", "usage", "widget snippet"]) expect(help.out).toContain(`ipatlas ${group}`);
  });

  it("ends quietly, exit 0, when its reader has gone (`ipatlas --help | head -1`)", async () => {
    const child = spawn(process.execPath, [BIN, "--help"], { stdio: ["ignore", "pipe", "pipe"] });
    // the reader closes before the command writes: its first write fails with EPIPE
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(stderr).toBe("");
    expect(code).toBe(0);
  }, 30_000);

  it("--help on every command and group: exit 0, usage on stdout, no storage opened", async () => {
    const emptyDir = join(dataDir, "never-created");
    const commands = commandGroups.flat();
    const groups = [...new Set(commands.filter((c) => c.words.length > 1).map((c) => c.words[0]!))];
    for (const words of [...commands.map((c) => c.words), ...groups.map((g) => [g])]) {
      for (const flag of ["--help", "-h"]) {
        const out: string[] = [];
        const err: string[] = [];
        const code = await main([...words, flag, "--data-dir", emptyDir], { stdout: (t) => out.push(t), stderr: (t) => err.push(t), env: {} });
        expect(code, words.join(" ")).toBe(0);
        expect(out.join(""), words.join(" ")).toContain(`Usage: ipatlas ${words.join(" ")}`);
        expect(err, words.join(" ")).toEqual([]);
      }
    }
    const help = await run("help", "website");
    expect(help.code).toBe(0);
    expect(help.out).toContain("add [options]");
    expect(existsSync(emptyDir)).toBe(false);
  });

  it("suggests the command or option meant, on one line", async () => {
    const command = await run("website", "ad");
    expect(command.code).toBe(2);
    expect(command.err).toBe("ipatlas: unknown command 'ad' (Did you mean add?)");
    const option = await run("project", "create", "--nme", "x");
    expect(option.code).toBe(2);
    expect(option.err).toBe("ipatlas: unknown option '--nme' (Did you mean --name?)");
    const group = await run("website");
    expect(group).toMatchObject({ code: 2, out: "", err: "ipatlas: missing command; run ipatlas website --help" });
  });

  it("warns on stderr before creating a new, empty database, once", async () => {
    const fresh = join(dataDir, "fresh");
    const warnings: string[] = [];
    const out: string[] = [];
    const first = await main(["project", "list", "--data-dir", fresh], { stdout: (t) => out.push(t), stderr: (t) => warnings.push(t), env: {} });
    expect(first).toBe(0);
    expect(warnings).toEqual([expect.stringMatching(/^ipatlas: warning: no database in .*fresh; creating a new, empty one/)]);
    expect(out).toEqual(["No projects."]);
    const again: string[] = [];
    const second = await main(["project", "list", "--json", "--data-dir", fresh], { stdout: () => {}, stderr: (t) => again.push(t), env: {} });
    expect(second).toBe(0);
    expect(again).toEqual([]);
  });
});
