/** First run, graceful shutdown and durability of acknowledged conversions (docs/api.md#running, #operations). */
import { describe, expect, it } from "vitest";
import { readFileSync, rmSync } from "node:fs";
import { backendNames, createBackend, serverAutovacuumOff } from "../helpers/backends.js";
import { makeDataDir, startServer } from "../helpers/server.js";
import { MESSAGES } from "../../lib/schemas/messages.js";

/** several server starts and CLI runs each; the machine is shared */
const SLOW = 180_000;

describe.each(backendNames)("server lifecycle (%s)", (backendName) => {
  it("first run creates project default and prints its key once, with a working curl line", async () => {
    const backend = await createBackend(backendName);
    const dataDir = makeDataDir();
    try {
      const first = await startServer({ dataDir, env: backend.env });
      // serve runs with the small young generation (bin/ipatlas.js), in the same process
      expect(readFileSync(`/proc/${first.process.pid}/cmdline`, "utf8").split("\0")).toContain("--max-semi-space-size=4");
      expect(first.output()).toMatch(/^IP Atlas listening on http:\/\/127\.0\.0\.1:\d+$/m);
      // the storage's upkeep warnings are logged at start (docs/storage.md, PostgreSQL notes)
      const autovacuumOff = backendName === "postgres" && (await serverAutovacuumOff());
      expect(first.output().includes("storage: PostgreSQL's autovacuum is off")).toBe(autovacuumOff);
      const key = /(ipa_sk_[0-9A-Za-z]{32})/.exec(first.output())?.[1];
      expect(key).toBeDefined();
      expect(first.output()).toContain(`curl -H 'x-api-key: ${key}' '${first.url}/convert?ip=8.8.8.8'`);
      const res = await fetch(`${first.url}/convert?ip=8.8.8.8`, { headers: { "x-api-key": key! } });
      expect(res.status).toBe(200);
      expect((await first.cli("project", "list")).projects.map((p: { name: string }) => p.name)).toEqual(["default"]);
      expect(await first.stop()).toBe(0);

      const second = await startServer({ dataDir, env: backend.env });
      expect(second.output()).not.toContain("ipa_sk_");
      await second.stop();
    } finally {
      await backend.dispose();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, SLOW);

  it("SIGTERM finishes in-flight requests and exits 0; an acknowledged conversion survives kill -9", async () => {
    const backend = await createBackend(backendName);
    const dataDir = makeDataDir();
    try {
      const server = await startServer({ dataDir, env: backend.env });
      const { secretKey } = await server.cli("project", "create", "--name", "durable", "--plan", "scale");
      const inflight = Array.from({ length: 10 }, () =>
        fetch(`${server.url}/convert`, {
          method: "POST",
          headers: { "x-api-key": secretKey, "content-type": "application/json" },
          body: JSON.stringify({ ips: Array(1000).fill("8.8.8.8") }),
        }),
      );
      // attached at once: requests the closing server refuses must not become unhandled rejections
      const settling = Promise.allSettled(inflight);
      await new Promise((r) => setTimeout(r, 30));
      const started = Date.now();
      const code = await server.stop("SIGTERM");
      expect(code).toBe(0);
      expect(Date.now() - started).toBeLessThan(10_000);
      const settled = await settling;
      const answered = settled.filter((s) => s.status === "fulfilled").map((s) => (s as PromiseFulfilledResult<Response>).value);
      for (const res of answered) expect(res.status).toBe(200);

      const killed = await startServer({ dataDir, env: backend.env });
      const acked = await fetch(`${killed.url}/convert?ip=1.1.1.1`, { headers: { "x-api-key": secretKey } });
      expect(acked.status).toBe(200);
      const id = acked.headers.get("x-conversion-id")!;
      expect(await killed.stop("SIGKILL")).toBeNull();

      const after = await startServer({ dataDir, env: backend.env });
      const stored = await fetch(`${after.url}/conversions/get?conversionId=${id}`, { headers: { "x-api-key": secretKey } });
      const body = await stored.json();
      expect(body.message).toBe(MESSAGES.success);
      expect(body.data.data.ip).toBe("1.1.1.1");
      expect((await after.cli("usage", "--project", (await after.cli("project", "list")).projects.find((p: { name: string }) => p.name === "durable").id)).used).toBe(
        answered.length * 1000 + 1,
      );
      await after.stop();
    } finally {
      await backend.dispose();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, SLOW);
});
