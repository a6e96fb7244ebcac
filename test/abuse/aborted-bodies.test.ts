/**
 * Bodies that never arrive whole: the client sends part of a body and disconnects, or sends a
 * chunk size that is not one. Each such socket used to stay in CLOSE-WAIT for good; 20,000 of
 * them used up the file limit. Now each is closed at once and the server stays fast.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { startServer, type TestServer } from "../helpers/server.js";
import { envelopeProblem, eventually, inParallel, openSocket, openSocketCount, rawRequest } from "../helpers/raw-http.js";

const ADMIN_TOKEN = "abuse-suite-admin-token-0123456789";
const ABORTED = 2_000;

let server: TestServer;
let secretKey: string;

beforeAll(async () => {
  server = await startServer({ env: { IPATLAS_ADMIN_TOKEN: ADMIN_TOKEN } });
  secretKey = (await server.cli("project", "create", "--name", "abuse")).secretKey;
});
afterAll(() => server?.stop());

function closeWaitCount(port: number): number {
  const out = execFileSync("ss", ["-tnH", "state", "close-wait", `( sport = :${port} )`], { encoding: "utf8" });
  return out.split("\n").filter((line) => line.trim() !== "").length;
}

async function healthzMs(): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${server.url}/healthz`);
  await res.arrayBuffer();
  expect(res.status).toBe(200);
  return performance.now() - started;
}

/** Headers and part of a body, then the client goes away. */
function cutOff(i: number): string {
  const kind = i % 3;
  if (kind === 0) {
    return `POST /admin/api/session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"token":"x`;
  }
  if (kind === 1) {
    return `POST /convert HTTP/1.1\r\nHost: x\r\nx-api-key: ${secretKey}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"ips":["1.1.1.1`;
  }
  return `POST /convert HTTP/1.1\r\nHost: x\r\nx-api-key: ${secretKey}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"ips`;
}

describe("aborted and malformed bodies", () => {
  it(`${ABORTED} bodies cut off by the client: sockets back to baseline within 5 s, /healthz fast`, async () => {
    const pid = server.process.pid!;
    await healthzMs();
    const baseline = openSocketCount(pid);
    const started = performance.now();
    let sent = 0;
    let unclosed = 0;
    await inParallel(ABORTED, 32, async (i) => {
      if (unclosed > 0) return; // the server keeps them: no point sending the rest
      const socket = await openSocket({ port: server.port });
      socket.on("error", () => {});
      const closed = new Promise<boolean>((r) => socket.once("close", () => r(true)));
      socket.resume(); // read (and drop) the answer, so the socket can end
      socket.end(cutOff(i));
      sent++;
      if (!(await Promise.race([closed, new Promise<boolean>((r) => setTimeout(() => r(false), 3_000))]))) unclosed++;
      socket.destroy();
    });
    expect(unclosed, "sockets the server did not close within 3 s").toBe(0);
    expect(sent).toBe(ABORTED);
    const sentMs = performance.now() - started;
    const settled = await eventually(() => openSocketCount(pid) <= baseline + 2 && closeWaitCount(server.port) === 0, 5_000);
    const after = openSocketCount(pid);
    const healthz = await healthzMs();
    console.log(`aborted bodies: ${sent} sent in ${Math.round(sentMs)} ms; server sockets ${baseline} before, ${after} after; /healthz ${healthz.toFixed(1)} ms`);
    expect(settled, `server holds ${after} sockets, baseline ${baseline}, close-wait ${closeWaitCount(server.port)}`).toBe(true);
    expect(healthz).toBeLessThan(1_000);
    // nothing of it was stored
    const list = await fetch(`${server.url}/conversions/list?limit=1`, { headers: { "x-api-key": secretKey } }).then((r) => r.json());
    expect(list.data.totalCount).toBe(0);
  }, 60_000);

  it("a bad chunk size or a body cut short while the client still listens gets a 400 envelope and a closed socket", async () => {
    const requests = [
      `POST /convert HTTP/1.1\r\nHost: x\r\nx-api-key: ${secretKey}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`,
      `POST /admin/api/session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${"f".repeat(40)}\r\n`,
    ];
    for (const text of requests) {
      const answer = await rawRequest({ port: server.port, timeoutMs: 5_000 }, text);
      expect(answer?.status).toBe(400);
      expect(envelopeProblem(answer!)).toBeNull();
      expect(answer!.headers.connection).toBe("close");
    }
    // half-closed by the client: the answer still comes, then the socket closes
    const socket = await openSocket({ port: server.port });
    const chunks: Buffer[] = [];
    socket.on("data", (d) => chunks.push(d));
    socket.end(`POST /admin/api/session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"to`);
    await new Promise((r) => socket.once("close", r));
    expect(Buffer.concat(chunks).toString()).toMatch(/^HTTP\/1\.1 400 [\s\S]*"Request ended before its body was complete"/);
    expect(closeWaitCount(server.port)).toBe(0);
  });
});
