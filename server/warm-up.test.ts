import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "./app.js";
import { loadConfig } from "./config.js";
import { createLogger } from "./logger.js";
import { startServer, type RunningServer } from "./serve.js";
import { openScratchStore, quietFastPath, SCRATCH_PREFIX, warmUp } from "./warm-up.js";

const CITY = join(import.meta.dirname, "../test/fixtures/maxmind/GeoIP2-City-Test.mmdb");

let dir: string;
let server: RunningServer;
const logged: Array<Record<string, unknown>> = [];
const requestLines = () => logged.filter((line) => line.msg === "request");

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ipatlas-warm-up-"));
  const env = { IPATLAS_DATA_DIR: dir, IPATLAS_CITY_DB: CITY, IPATLAS_METRICS: "1", IPATLAS_LOG_LEVEL: "info" };
  const config = loadConfig({ ...env, IPATLAS_PORT: "0", IPATLAS_HOST: "127.0.0.1" });
  server = await startServer(config, env, () => {}, createLogger("info", (line) => logged.push(JSON.parse(line))));
}, 60_000);
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("warm-up", () => {
  it("leaves no trace of its requests: no access line, no request counted", async () => {
    expect(requestLines()).toEqual([]);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).not.toMatch(/ipatlas_http_requests_total\{[^}]*route="\/(convert|healthz)"/);
  });

  it("sends its requests over HTTP through the fast path and the app, on a server of its own", async () => {
    const { deps } = server;
    const linesBefore = requestLines().length;
    const fast = quietFastPath(deps);
    let seen = 0;
    const { answered, stored } = await warmUp({
      app: createApp(deps),
      engine: deps.engine,
      fastPath: (req, res, next) => (seen++, fast(req, res, next)),
      limits: deps.config.limits,
      // long enough for each of its 8 connections to ask more than once while other suites load the cores
      budgetMs: 200,
    });
    expect(answered).toBeGreaterThan(8);
    expect(stored).toBe(0);
    expect(seen).toBe(answered);
    expect(requestLines()).toHaveLength(linesBefore);
  });

  it("stores conversions on a throwaway store only, which it then deletes", async () => {
    const { deps } = server;
    const projects = await deps.services.listProjects();
    const scratch = await openScratchStore(deps);
    // other test files start servers, whose warm-ups make scratch stores of their own meanwhile
    expect(dirname(scratch.dir)).toBe(tmpdir());
    expect(basename(scratch.dir).startsWith(SCRATCH_PREFIX)).toBe(true);
    expect(readdirSync(scratch.dir).length).toBeGreaterThan(0);
    let result;
    try {
      result = await warmUp({ app: createApp(deps), engine: deps.engine, fastPath: scratch.fastPath, limits: deps.config.limits, budgetMs: 50, storedKey: scratch.key });
    } finally {
      await scratch.close();
    }
    expect(result.stored).toBeGreaterThan(2);
    expect(result.answered).toBeGreaterThan(result.stored);
    expect(existsSync(scratch.dir)).toBe(false);
    // the operator's store: the same projects, and not one conversion in any of them
    expect(await deps.services.listProjects()).toEqual(projects);
    for (const project of projects) {
      expect((await deps.storage.listConversions({ projectId: project.id, offset: 0, limit: 1 })).totalCount).toBe(0);
    }
  });
});
