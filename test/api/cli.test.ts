/** Every command of docs/api.md#command-line through the real `ipatlas` binary, its --json documents and its exit codes. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { backendNames, createBackend, type Backend } from "../helpers/backends.js";
import { BIN, makeDataDir, ROOT, runCli, startServer } from "../helpers/server.js";

const exec = promisify(execFile);
/** every CLI run is a fresh Node process; the machine is shared */
const SLOW = 180_000;

describe.each(backendNames)("ipatlas CLI (%s)", (backendName) => {
  let backend: Backend;
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  const cli = <T = any>(...args: string[]) => runCli<T>(dataDir, env, ...args);

  /** runs without --json and reports exit code and streams */
  async function raw(...args: string[]) {
    try {
      const { stdout, stderr } = await exec(process.execPath, [BIN, ...args, "--data-dir", dataDir], { env, cwd: ROOT });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const e = error as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  }

  beforeAll(async () => {
    backend = await createBackend(backendName);
    dataDir = makeDataDir();
    env = { ...process.env, ...backend.env };
  });
  afterAll(async () => {
    await backend.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("runs the whole project / key / website / usage cycle with one JSON document each", async () => {
    const created = await cli("project", "create", "--name", "Shop", "--plan", "starter");
    expect(created).toEqual({ project: { id: expect.any(String), name: "Shop", plan: "starter" }, secretKey: expect.stringMatching(/^ipa_sk_/) });
    const projectId = created.project.id;

    const projects = await cli("project", "list");
    expect(projects.projects).toContainEqual({ id: projectId, name: "Shop", plan: "starter", used: 0, limit: 10000 });

    expect((await cli("project", "plan", projectId, "growth")).project).toEqual({ id: projectId, name: "Shop", plan: "growth" });

    const key = await cli("key", "create", "--project", projectId, "--name", "backend");
    expect(key.key).toMatchObject({ id: expect.any(String), name: "backend", prefix: key.secretKey.slice(0, 11) });
    const keys = await cli("key", "list", "--project", projectId);
    expect(keys.keys.map((k: { name: string }) => k.name).sort()).toEqual(["backend", "default"]);
    for (const k of keys.keys) expect(Object.keys(k)).toEqual(expect.arrayContaining(["id", "name", "kind", "prefix", "createdAt", "lastUsedAt"]));
    expect(JSON.stringify(keys)).not.toContain(key.secretKey);

    const rolled = await cli("key", "roll", key.key.id);
    expect(rolled.secretKey).toMatch(/^ipa_sk_/);
    expect(rolled.secretKey).not.toBe(key.secretKey);
    expect((await cli("key", "revoke", key.key.id)).key.id).toBe(key.key.id);

    const website = await cli("website", "add", "--project", projectId, "--origin", "Shop.Example.com");
    expect(website).toEqual({
      website: { id: expect.any(String), origin: "shop.example.com", projectId },
      publicKey: expect.stringMatching(/^ipa_pk_/),
      snippet: expect.stringMatching(/<script async src="http:\/\/[^"]+\/widget\/[^"]+\.js" integrity="sha384-/),
    });
    expect(website.snippet).toContain(`data-key="${website.publicKey}"`);
    const rolledPublic = await cli("key", "roll", (await cli("key", "list", "--project", projectId)).keys.find((k: { kind: string }) => k.kind === "public").id);
    expect(rolledPublic.publicKey).toMatch(/^ipa_pk_/);
    const websites = await cli("website", "list", "--project", projectId);
    expect(websites.websites).toEqual([{ id: website.website.id, origin: "shop.example.com", projectId, keyPrefix: rolledPublic.publicKey.slice(0, 11) }]);
    expect((await cli("website", "remove", website.website.id)).website.id).toBe(website.website.id);
    expect((await cli("website", "list", "--project", projectId)).websites).toEqual([]);

    const usage = await cli("usage", "--project", projectId);
    expect(usage).toEqual({ plan: "growth", used: 0, limit: 100000, periodStart: expect.stringMatching(/-01T00:00:00\.000Z$/), periodEnd: expect.stringMatching(/-01T00:00:00\.000Z$/) });
  }, SLOW);

  it("prints readable text without --json", async () => {
    const out = await raw("project", "create", "--name", "Readable");
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/Secret key \(shown once.*\): ipa_sk_/);
  });

  it("bad arguments: one line on stderr and exit code 2", async () => {
    const cases = [
      ["project", "create"],
      ["project", "create", "--name", "x", "--plan", "platinum"],
      ["project", "create", "--name", "x", "--bogus"],
      ["project", "plan", "only-one-arg"],
      ["project", "plan", "no-such-project", "free"],
      ["key", "create", "--project", "no-such-project", "--name", "x"],
      ["key", "roll", "no-such-key"],
      ["website", "add", "--project", "no-such-project", "--origin", "https://example.com/path"],
      ["usage"],
      ["frobnicate"],
      [],
    ];
    for (const args of cases) {
      const out = await raw(...args, "--json");
      expect(out.code, args.join(" ")).toBe(2);
      expect(out.stdout, args.join(" ")).toBe("");
      expect(out.stderr.trim().split("\n"), args.join(" ")).toHaveLength(args.length ? 1 : out.stderr.trim().split("\n").length);
    }
    const origin = await raw("website", "add", "--project", (await cli("project", "create", "--name", "o")).project.id, "--origin", "ftp://x.test");
    expect(origin.code).toBe(2);
    expect(origin.stderr).toMatch(/scheme/);
  }, SLOW);
});

describe("ipatlas start (docs/api.md \"Running\")", () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = makeDataDir();
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  /** `project list` with the system's temporary directory at `tmp`; its projects and the files of the compile cache there */
  async function listWith(tmp: string, env: NodeJS.ProcessEnv = {}) {
    const { NODE_COMPILE_CACHE: _dir, NODE_DISABLE_COMPILE_CACHE: _off, ...inherited } = process.env;
    const { stdout } = await exec(process.execPath, [BIN, "project", "list", "--json", "--data-dir", dataDir], { env: { ...inherited, TMPDIR: tmp, ...env }, cwd: ROOT });
    const cache = join(tmp, "node-compile-cache");
    const files = existsSync(cache) ? readdirSync(cache, { recursive: true }).length : 0;
    return { projects: (JSON.parse(stdout) as { projects: unknown[] }).projects, files };
  }

  it("keeps the compiled modules in the temporary directory, and nowhere with NODE_DISABLE_COMPILE_CACHE=1", async () => {
    const kept = join(dataDir, "kept");
    mkdirSync(kept);
    expect((await listWith(kept)).files).toBeGreaterThan(50);
    const off = join(dataDir, "off");
    mkdirSync(off);
    expect((await listWith(off, { NODE_DISABLE_COMPILE_CACHE: "1" })).files).toBe(0);
  }, SLOW);

  it("serve on SQLite without metrics loads no PostgreSQL driver, metrics library, progress bar, API client or log prettifier", async () => {
    const listFile = join(dataDir, "loaded-modules.txt");
    const hook = pathToFileURL(join(ROOT, "test/helpers/loaded-modules.mjs")).href;
    const server = await startServer({ env: { NODE_OPTIONS: `--import=${hook}`, LOADED_MODULES_FILE: listFile } });
    expect(await server.stop()).toBe(0);
    const loaded = readFileSync(listFile, "utf8").split("\n");
    expect(loaded.filter((url) => url.endsWith("/server/serve.ts"))).toHaveLength(1);
    for (const name of ["pg", "prom-client", "@opentelemetry/api", "pino-pretty", "cli-progress", "ky"]) {
      expect(loaded.filter((url) => url.includes(`/node_modules/${name}/`)), name).toEqual([]);
    }
  }, SLOW);

  it("runs all the same when the cache cannot be written", async () => {
    const tmp = join(dataDir, "tmp");
    mkdirSync(tmp);
    const notADirectory = join(dataDir, "a-file");
    writeFileSync(notADirectory, "");
    const run = await listWith(tmp, { NODE_COMPILE_CACHE: join(notADirectory, "cache") });
    expect(run.projects).toEqual(expect.any(Array));
    expect(run.files).toBe(0);
  }, SLOW);
});
