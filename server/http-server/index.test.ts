import { afterEach, describe, expect, it } from "vitest";
import type { AddressInfo } from "node:net";
import { loadConfig } from "../config.js";
import { createHttpServer, type HttpServer } from "./index.js";
import { envelopeProblem, openSocket, rawRequest } from "../../test/helpers/raw-http.js";

let running: HttpServer | null = null;
afterEach(() => {
  running?.server.closeAllConnections();
  running?.server.close();
  running = null;
});

async function start(env: Record<string, string> = {}): Promise<number> {
  const limits = loadConfig(env).limits;
  running = createHttpServer({ fetch: () => new Response("app"), limits, hostname: "127.0.0.1" });
  await new Promise<void>((r) => running!.server.listen(0, "127.0.0.1", r));
  return (running.server.address() as AddressInfo).port;
}

describe("createHttpServer", () => {
  it("answers what never reaches the app with the envelope", async () => {
    const port = await start();
    const cases: Array<[string, number]> = [
      ["GET /a\\b HTTP/1.1\r\nHost: x\r\n\r\n", 400],
      ["GET /a HTTP/1.1\r\nHost: a b\r\n\r\n", 400],
      ["GET /a HTTP/1.1\r\n\r\n", 400],
      ["GET ftp://x/a HTTP/1.1\r\nHost: x\r\n\r\n", 400],
      ["OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n", 200],
      ["GET /a HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\n\r\n", 417],
      ["CONNECT x:443 HTTP/1.1\r\nHost: x\r\n\r\n", 405],
      ["NOT HTTP\r\n\r\n", 400],
    ];
    for (const [text, status] of cases) {
      const answer = await rawRequest({ port, timeoutMs: 3_000 }, text);
      expect(answer?.status, text).toBe(status);
      expect(envelopeProblem(answer!), text).toBeNull();
    }
    // and the app still gets everything else, HTTP/1.0 without Host included
    expect((await rawRequest({ port, timeoutMs: 3_000 }, "GET /a HTTP/1.0\r\n\r\n"))?.body).toBe("app");
  });

  it("refuses connections past the per-address limit with 429, and counts them back down", async () => {
    const port = await start({ IPATLAS_MAX_CONNECTIONS_PER_ADDRESS: "2", IPATLAS_CONNECTION_LIMIT_EXEMPT: "none" });
    const held = [await openSocket({ port }), await openSocket({ port })];
    const refused = await rawRequest({ port, timeoutMs: 3_000 }, "GET /a HTTP/1.1\r\nHost: x\r\n\r\n");
    expect(refused?.status).toBe(429);
    expect(envelopeProblem(refused!)).toBeNull();
    for (const socket of held) socket.destroy();
    await new Promise((r) => setTimeout(r, 100));
    expect(running!.connections.open.size).toBe(0);
    expect((await rawRequest({ port, timeoutMs: 3_000 }, "GET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))?.body).toBe("app");
  });

  it("does not count exempt peers (loopback by default)", async () => {
    const port = await start({ IPATLAS_MAX_CONNECTIONS_PER_ADDRESS: "1" });
    const held = [await openSocket({ port }), await openSocket({ port })];
    expect((await rawRequest({ port, timeoutMs: 3_000 }, "GET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))?.body).toBe("app");
    for (const socket of held) socket.destroy();
  });

  it("exempts exactly the listed ranges", async () => {
    const port = await start({ IPATLAS_MAX_CONNECTIONS_PER_ADDRESS: "1", IPATLAS_CONNECTION_LIMIT_EXEMPT: "127.0.0.2/32, 10.0.0.0/8" });
    const held = [await openSocket({ port, localAddress: "127.0.0.2" }), await openSocket({ port })];
    const request = "GET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    expect((await rawRequest({ port, localAddress: "127.0.0.2", timeoutMs: 3_000 }, request))?.body).toBe("app");
    expect((await rawRequest({ port, timeoutMs: 3_000 }, request))?.status).toBe(429);
    for (const socket of held) socket.destroy();
  });
});
