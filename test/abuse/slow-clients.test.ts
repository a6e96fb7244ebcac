/**
 * Clients that hold connections: slow headers, slow bodies (slowloris), idle keep-alive, and
 * more connections from one address than the limit. Short limits so the suite stays quick; a
 * second loopback address (127.0.0.2) is a second client, which must not notice.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Socket } from "node:net";
import { startServer, type TestServer } from "../helpers/server.js";
import { envelopeProblem, openSocket, rawRequest, readAnswer, type RawAnswer } from "../helpers/raw-http.js";

const LIMITS = {
  IPATLAS_HEADERS_TIMEOUT_MS: "2000",
  IPATLAS_REQUEST_TIMEOUT_MS: "3000",
  IPATLAS_KEEP_ALIVE_TIMEOUT_MS: "1000",
  IPATLAS_MAX_CONNECTIONS_PER_ADDRESS: "40",
  IPATLAS_CONNECTION_LIMIT_EXEMPT: "none",
};
const OTHER_CLIENT = "127.0.0.2";
const HEALTHZ = "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ env: LIMITS });
});
afterAll(() => server?.stop());

/** /healthz as another client, with its time */
async function otherClientHealthz(): Promise<{ answer: RawAnswer | null; ms: number }> {
  const started = performance.now();
  const answer = await rawRequest({ port: server.port, localAddress: OTHER_CLIENT, timeoutMs: 5_000 }, HEALTHZ);
  return { answer, ms: performance.now() - started };
}

/** Writes `text` one piece at a time, every `everyMs`, until the socket closes. */
function dribble(socket: Socket, text: string, everyMs: number): () => void {
  let at = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || at >= text.length) return clearInterval(timer);
    socket.write(text[at++]!);
  }, everyMs);
  socket.once("close", () => clearInterval(timer));
  return () => clearInterval(timer);
}

describe("slow and many connections", () => {
  it("slow headers and slow bodies are cut at their timeouts with a 408 envelope; others are served meanwhile", async () => {
    const slowHeaders = Array.from({ length: 15 }, () => openSocket({ port: server.port }));
    const slowBodies = Array.from({ length: 15 }, () => openSocket({ port: server.port }));
    const started = performance.now();
    const answers = await Promise.all([
      ...slowHeaders.map(async (pending) => {
        const socket = await pending;
        const answer = readAnswer(socket, 8_000);
        dribble(socket, "GET /healthz HTTP/1.1\r\nHost: x\r\nx-slow: " + "a".repeat(200), 200);
        return answer;
      }),
      ...slowBodies.map(async (pending) => {
        const socket = await pending;
        const answer = readAnswer(socket, 8_000);
        socket.write("POST /admin/api/session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n");
        dribble(socket, `{"token":"${"a".repeat(180)}"}`, 200);
        return answer;
      }),
      // meanwhile, another client
      (async () => {
        await new Promise((r) => setTimeout(r, 500));
        const { answer, ms } = await otherClientHealthz();
        expect(answer?.status).toBe(200);
        expect(ms).toBeLessThan(1_000);
        return null;
      })(),
    ]);
    const elapsed = performance.now() - started;
    const cut = answers.slice(0, 30);
    for (const answer of cut) {
      expect(answer?.status).toBe(408);
      expect(envelopeProblem(answer!)).toBeNull();
    }
    // 2 s for headers, 3 s for the whole request, checked every second
    expect(elapsed).toBeLessThan(6_500);
    console.log(`slowloris: ${cut.length} slow clients cut with 408 within ${Math.round(elapsed)} ms`);
  }, 30_000);

  it("an idle kept-alive connection is closed after the keep-alive timeout", async () => {
    const socket = await openSocket({ port: server.port });
    const chunks: Buffer[] = [];
    socket.on("data", (d) => chunks.push(d));
    const closed = new Promise<number>((r) => socket.once("close", () => r(performance.now())));
    socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    const started = performance.now();
    const at = await Promise.race([closed, new Promise<number>((r) => setTimeout(() => r(-1), 5_000))]);
    socket.destroy();
    expect(Buffer.concat(chunks).toString()).toMatch(/^HTTP\/1\.1 200 /);
    expect(at).toBeGreaterThan(0);
    expect(at - started).toBeLessThan(3_000);
  });

  it("connections past the per-address limit get a 429 envelope at once; another address is not affected", async () => {
    const held = await Promise.all(Array.from({ length: 40 }, () => openSocket({ port: server.port })));
    try {
      for (const socket of held) socket.on("error", () => {});
      const refused = await rawRequest({ port: server.port, timeoutMs: 3_000 }, HEALTHZ);
      expect(refused?.status).toBe(429);
      expect(envelopeProblem(refused!)).toBeNull();
      expect(refused!.headers["retry-after"]).toBe("1");
      const { answer } = await otherClientHealthz();
      expect(answer?.status).toBe(200);
    } finally {
      for (const socket of held) socket.destroy();
    }
    await new Promise((r) => setTimeout(r, 200));
    const again = await rawRequest({ port: server.port, timeoutMs: 3_000 }, HEALTHZ);
    expect(again?.status).toBe(200);
  });
});
