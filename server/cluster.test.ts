/**
 * `ipatlas serve --workers 2` (server/cluster.ts) over HTTP on every backend: both workers share
 * the port and the quota, and SIGTERM stops them all with exit code 0.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendNames, createBackend, type Backend } from "../test/helpers/backends.js";
import { startServer, type TestServer } from "../test/helpers/server.js";

const SLOW = 120_000;

describe.each(backendNames)("serve --workers 2 on %s", (name) => {
  let backend: Backend;
  let server: TestServer;

  beforeAll(async () => {
    backend = await createBackend(name);
    server = await startServer({ env: backend.env, args: ["--workers", "2"], timeoutMs: 90_000 });
  }, SLOW);
  afterAll(async () => {
    await server?.stop();
    await backend?.dispose();
  });

  it("creates the first-run project once, and the workers share the quota exactly", async () => {
    const { projects } = await server.cli<{ projects: Array<{ name: string }> }>("project", "list");
    expect(projects.filter((p) => p.name === "default")).toHaveLength(1);

    const { project, secretKey } = await server.cli("project", "create", "--name", "workers", "--plan", "free");
    const responses = await Promise.all(
      Array.from({ length: 1100 }, (_, i) =>
        fetch(`${server.url}/convert?ip=8.8.${i >> 8}.${i & 255}`, { headers: { "x-api-key": secretKey } }),
      ),
    );
    await Promise.all(responses.map((r) => r.arrayBuffer()));
    expect(responses.filter((r) => r.status === 200)).toHaveLength(1000);
    expect(responses.filter((r) => r.status === 429)).toHaveLength(100);
    expect(await server.cli("usage", "--project", project.id)).toMatchObject({ used: 1000 });
  }, SLOW);

  it("SIGTERM stops every worker and the primary exits 0", async () => {
    const second = await startServer({ env: backend.env, dataDir: server.dataDir, args: ["--workers", "2"], timeoutMs: 90_000 });
    const res = await fetch(`${second.url}/healthz`);
    expect(res.status).toBe(200);
    const code = await second.stop("SIGTERM");
    expect(code).toBe(0);
    await expect(fetch(`${second.url}/healthz`)).rejects.toThrow();
  }, SLOW);
});

describe("serve --workers 2 when the database is unreachable", () => {
  it("exits 1 with one clear line per attempt, no restart loop and no stack trace", async () => {
    const error = await startServer({
      env: { DATABASE_URL: "postgres://ipatlas:secret@127.0.0.1:1/nowhere" },
      args: ["--workers", "2"],
      timeoutMs: 60_000,
    }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    const message = (error as Error).message;
    expect(message).toMatch(/server exited with 1/);
    expect(message).toContain("Cannot connect to PostgreSQL at 127.0.0.1:1/nowhere");
    expect(message).toContain("Cannot start the cluster");
    expect(message).not.toMatch(/^\s+at /m);
    expect(message).not.toContain("secret");
  }, SLOW);
});
