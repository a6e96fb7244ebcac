/**
 * Shutdown under load on every supported Node: the server is loaded with single and bulk converts,
 * then SIGTERM arrives mid-load; it must release its databases and exit 0 within 10 s, with no
 * native assertion on the way out (better-sqlite3 12 aborted on Node 24 when statements were
 * collected). The Node running the tests is always checked; IPATLAS_TEST_NODES adds others
 * (comma-separated binaries; CI passes Node 22 there while the suite runs on 24). And a signal
 * sent the moment the "listening" line is out, which Node's default would end at once.
 */
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { backendNames, createBackend } from "../helpers/backends.js";
import { BIN, makeDataDir, ROOT, startServer } from "../helpers/server.js";

const nodes = [process.execPath, ...(process.env.IPATLAS_TEST_NODES ?? "").split(",").filter(Boolean)].map((binary) => ({
  binary,
  version: execFileSync(binary, ["--version"], { encoding: "utf8" }).trim(),
}));
const cases = backendNames.flatMap((backend) => nodes.map((node) => ({ backend, ...node })));
const LOAD_MS = 1_500;

describe.each(cases)("shutdown under load ($backend, Node $version)", ({ backend: backendName, binary }) => {
  it("SIGTERM mid-load exits 0 within 10 s and prints no native assertion", async () => {
    const backend = await createBackend(backendName);
    const dataDir = makeDataDir();
    try {
      const server = await startServer({ dataDir, env: backend.env, node: binary });
      const { secretKey } = await server.cli("project", "create", "--name", "load", "--plan", "scale");
      const headers = { "x-api-key": secretKey, "content-type": "application/json" };
      const until = Date.now() + LOAD_MS;
      let answered = 0;
      // 16 clients looping single converts and 2 looping 2000-address bulks, until the server goes away
      const single = async () => {
        for (let i = 0; Date.now() < until; i++) {
          const res = await fetch(`${server.url}/convert?ip=81.2.69.${i % 250}`, { headers });
          await res.arrayBuffer();
          answered++;
        }
      };
      const bulk = async () => {
        while (Date.now() < until) {
          const res = await fetch(`${server.url}/convert`, { method: "POST", headers, body: JSON.stringify({ ips: Array(2000).fill("2001:4860:4860::8888") }) });
          await res.arrayBuffer();
          answered++;
        }
      };
      const load = Promise.allSettled([...Array.from({ length: 16 }, single), bulk(), bulk()]);
      await new Promise((r) => setTimeout(r, LOAD_MS / 2));
      const started = Date.now();
      const code = await server.stop("SIGTERM");
      const took = Date.now() - started;
      await load;
      expect(answered).toBeGreaterThan(0);
      expect(server.output()).not.toMatch(/Assertion failed|SIGABRT|core dumped/);
      expect(code).toBe(0);
      expect(took).toBeLessThan(10_000);
    } finally {
      await backend.dispose();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe.each(nodes)("a signal the moment the server is up (Node $version)", ({ binary }) => {
  it.each(["SIGTERM", "SIGINT"] as const)("%s sent as the listening line arrives shuts down gracefully: exit 0", async (signal) => {
    const dataDir = makeDataDir();
    try {
      const child = spawn(binary, [BIN, "serve", "--port", "0", "--host", "127.0.0.1", "--data-dir", dataDir], {
        env: { ...process.env, IPATLAS_LOG_LEVEL: "info" },
        cwd: ROOT,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      let sent = false;
      child.stderr.on("data", (chunk) => (out += chunk));
      child.stdout.on("data", (chunk) => {
        out += chunk;
        // no await between the line and the signal: the earliest a supervisor could send it
        if (!sent && /listening on http/.test(out)) sent = child.kill(signal);
      });
      const [code, killedBy] = (await once(child, "exit")) as [number | null, NodeJS.Signals | null];
      expect(sent).toBe(true);
      expect({ code, killedBy }).toEqual({ code: 0, killedBy: null });
      expect(out).toContain(`${signal}: shutting down`);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
