import { describe, expect, it } from "vitest";
import { createServer } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { onClientError } from "./client-error.js";

/** A raw request over TCP, since fetch cannot send a malformed one. */
async function raw(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(text));
    let out = "";
    socket.on("data", (d) => (out += d));
    socket.on("end", () => resolve(out));
    socket.on("error", reject);
  });
}

describe("onClientError", () => {
  it("answers a malformed request with the envelope instead of a bare 400", async () => {
    const server = createServer((_req, res) => res.end("ok")).on("clientError", onClientError);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    try {
      const bad = await raw(port, "GET /convert HTTP/1.1\r\nx-api-key: a\x01b\r\n\r\n");
      expect(bad).toMatch(/^HTTP\/1\.1 400 Bad Request/);
      const body = JSON.parse(bad.slice(bad.indexOf("\r\n\r\n") + 4));
      expect(body).toMatchObject({ success: false, code: 400, message: "Malformed HTTP request", data: null });
      expect(bad).toContain(`x-request-id: ${body._req.reqId}`);
      const big = await raw(port, `GET / HTTP/1.1\r\nx-big: ${"a".repeat(20_000)}\r\n\r\n`);
      expect(big).toMatch(/^HTTP\/1\.1 431 /);
    } finally {
      server.close();
    }
  });

  it("answers a complete request first when garbage follows it, then the error", async () => {
    // the handler answers late, as a convert does after its group commit
    const server = createServer((_req, res) => setTimeout(() => res.end("stored"), 50)).on("clientError", onClientError);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    try {
      const out = await raw(port, "POST / HTTP/1.1\r\nHost: x\r\ncontent-length: 2\r\n\r\n{}GARBAGE\r\n\r\n");
      expect(out).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*\r\n\r\nstored/);
      expect(out).toMatch(/HTTP\/1\.1 400 Bad Request[\s\S]*"Malformed HTTP request"/);
    } finally {
      server.close();
    }
  });
});
