/**
 * `ipatlas serve --workers 2` and `--threads 2` (server/server-group.ts) over HTTP on every
 * backend: both servers share the port and the quota, and SIGTERM stops them all with exit code 0.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendNames, createBackend, type Backend } from "../test/helpers/backends.js";
import { startServer, type TestServer } from "../test/helpers/server.js";
import { WriteTurns } from "./server-group.js";

const SLOW = 120_000;

/** sockets listening on `port` on loopback, from the kernel's own table (Linux) */
function listeningSockets(port: number): number {
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  return readFileSync("/proc/net/tcp", "utf8")
    .split("\n")
    .filter((line) => {
      const fields = line.trim().split(/\s+/);
      return fields[1]?.endsWith(`:${hexPort}`) && fields[3] === "0A";
    }).length;
}

const groups = backendNames.flatMap((name) => [
  { name, flag: "--workers", sockets: 1 }, // the cluster's primary holds the one socket
  { name, flag: "--threads", sockets: 2 }, // each thread its own, SO_REUSEPORT
]);

describe.each(groups)("serve $flag 2 on $name", ({ name, flag, sockets }) => {
  let backend: Backend;
  let server: TestServer;

  beforeAll(async () => {
    backend = await createBackend(name);
    server = await startServer({ env: backend.env, args: [flag, "2"], timeoutMs: 90_000 });
  }, SLOW);
  afterAll(async () => {
    await server?.stop();
    await backend?.dispose();
  });

  it("creates the first-run project once, and the servers share the quota exactly", async () => {
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

  it(`listens on the port with ${sockets} socket(s) once every server is up`, async () => {
    // the second thread listens once the first has told the primary its port (asked as port 0)
    for (let tries = 0; tries < 50 && listeningSockets(server.port) < sockets; tries++) await new Promise((r) => setTimeout(r, 100));
    expect(listeningSockets(server.port)).toBe(sockets);
  });

  it("SIGTERM stops every server and the primary exits 0", async () => {
    const second = await startServer({ env: backend.env, dataDir: server.dataDir, args: [flag, "2"], timeoutMs: 90_000 });
    const res = await fetch(`${second.url}/healthz`);
    expect(res.status).toBe(200);
    const code = await second.stop("SIGTERM");
    expect(code).toBe(0);
    await expect(fetch(`${second.url}/healthz`)).rejects.toThrow();
  }, SLOW);
});

describe.each([
  { flag: "--workers", what: "the cluster" },
  { flag: "--threads", what: "the server threads" },
])("serve $flag 2 when the database is unreachable", ({ flag, what }) => {
  it("exits 1 with one clear line per attempt, no restart loop and no stack trace", async () => {
    const error = await startServer({
      env: { DATABASE_URL: "postgres://ipatlas:secret@127.0.0.1:1/nowhere" },
      args: [flag, "2"],
      timeoutMs: 60_000,
    }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    const message = (error as Error).message;
    expect(message).toMatch(/server exited with 1/);
    expect(message).toContain("Cannot connect to PostgreSQL at 127.0.0.1:1/nowhere");
    expect(message).toContain(`Cannot start ${what}`);
    expect(message).not.toMatch(/^\s+at /m);
    expect(message).not.toContain("secret");
  }, SLOW);
});

describe("WriteTurns, the primary's turn at writing SQLite", () => {
  /** parties are names; what each was sent, in order; `gone` parties cannot be sent to */
  function turns() {
    const sent: string[] = [];
    const gone = new Set<string>();
    const keeper = new WriteTurns<string>((party, message) => {
      if (gone.has(party)) return false;
      sent.push(`${party}:${message}`);
      return true;
    });
    return { keeper, sent, gone };
  }

  it("gives one holder the turn at a time, the others in the order they asked", () => {
    const { keeper, sent } = turns();
    keeper.take("a", false);
    keeper.take("b", false);
    keeper.take("c", false);
    expect(sent).toEqual(["a:turn"]);
    keeper.release("b"); // not the holder: nothing moves
    keeper.release("a");
    keeper.release("b");
    expect(sent).toEqual(["a:turn", "b:turn", "c:turn"]);
  });

  it("tells the holder when a light request waits, and grants it ahead of a heavier one that asked before", () => {
    const { keeper, sent } = turns();
    keeper.take("bulk", false);
    keeper.take("other-bulk", false);
    expect(sent).toEqual(["bulk:turn"]);
    keeper.take("get", true);
    expect(sent).toEqual(["bulk:turn", "bulk:make-way"]);
    keeper.release("bulk");
    keeper.release("get");
    expect(sent).toEqual(["bulk:turn", "bulk:make-way", "get:turn", "other-bulk:turn"]);
  });

  it("takes turns between light requests ahead and the heavier ones, so GETs cannot hold a bulk back", () => {
    const { keeper, sent } = turns();
    keeper.take("a", true);
    keeper.take("bulk", false);
    keeper.take("b", true);
    keeper.take("c", true);
    keeper.release("a"); // b goes ahead of the bulk
    keeper.release("b"); // then the bulk, though c is light
    keeper.release("bulk");
    expect(sent.filter((m) => m.endsWith(":turn"))).toEqual(["a:turn", "b:turn", "bulk:turn", "c:turn"]);
    // the bulk was told of c when it got the turn
    expect(sent).toContain("bulk:make-way");
  });

  it("a party that is gone, holding the turn or waiting, keeps no one waiting", () => {
    const { keeper, sent, gone } = turns();
    keeper.take("a", false);
    keeper.take("b", false);
    keeper.take("c", false);
    gone.add("b");
    keeper.leave("a");
    expect(sent).toEqual(["a:turn", "c:turn"]);
    keeper.take("d", false);
    keeper.leave("d");
    keeper.release("c");
    keeper.take("e", false);
    expect(sent).toEqual(["a:turn", "c:turn", "e:turn"]);
  });
});
