/**
 * The client against a loopback HTTP server that answers like the contract says (the real
 * server's behaviour is covered end to end in test/e2e/extension.test.ts). Checks the request it
 * sends and how each answer becomes data or a typed ApiError.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MESSAGES } from "../schemas/messages.js";
import { bareIpObject } from "../schemas/ip-object.js";
import { ApiError, createClient } from "./index.js";

type Reply = { status: number; body: unknown; headers?: Record<string, string> };
let next: Reply;
let seen: { method: string; url: string; key: string | undefined; body: string } | null = null;
let server: Server;
let baseUrl: string;

const envelope = (code: number, message: string, data: unknown) => ({
  success: code < 400,
  message,
  code,
  data,
  _req: { reqId: "req-1", resTime: 1.5 },
});

async function readBody(req: IncomingMessage): Promise<string> {
  let text = "";
  for await (const chunk of req) text += chunk;
  return text;
}

beforeAll(async () => {
  server = createServer(async (req, res) => {
    seen = { method: req.method!, url: req.url!, key: req.headers["x-api-key"] as string, body: await readBody(req) };
    res.writeHead(next.status, { "content-type": "application/json", ...next.headers });
    res.end(typeof next.body === "string" ? next.body : JSON.stringify(next.body));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe("createClient", () => {
  const client = () => createClient({ baseUrl, apiKey: "ipa_pk_test" });

  it("GET /convert with the key and the ip, under the base URL's path", async () => {
    next = { status: 200, body: envelope(200, MESSAGES.success, bareIpObject("10.0.0.1", "ipv4")), headers: { "x-ratelimit-limit": "1000", "x-ratelimit-remaining": "999", "x-ratelimit-reset": "1790000000" } };
    const result = await client().convert("10.0.0.1");
    expect(seen).toMatchObject({ method: "GET", url: "/api/convert?ip=10.0.0.1", key: "ipa_pk_test" });
    expect(result.data?.ip).toBe("10.0.0.1");
    expect(result.requestId).toBe("req-1");
    expect(result.quota).toEqual({ limit: 1000, remaining: 999, resetAt: 1_790_000_000_000 });
  });

  it("GET /convert without ip asks for the caller's own address", async () => {
    next = { status: 200, body: envelope(200, MESSAGES.success, bareIpObject("127.0.0.1", "ipv4")) };
    await client().convert();
    expect(seen?.url).toBe("/api/convert");
  });

  it("POST /convert sends {ips} as JSON and parses the items", async () => {
    const items = [{ ip: "8.8.8.8", conversion: bareIpObject("8.8.8.8", "ipv4"), conversionId: "0b7c3c1e-8a3e-4d5b-9f1e-2a6b8c9d0e1f" }];
    next = { status: 200, body: envelope(200, MESSAGES.success, items) };
    const result = await client().bulkConvert(["8.8.8.8"]);
    expect(seen).toMatchObject({ method: "POST", url: "/api/convert" });
    expect(JSON.parse(seen!.body)).toEqual({ ips: ["8.8.8.8"] });
    expect(result.data).toEqual(items);
  });

  it("refuses more than 5000 addresses without sending", async () => {
    seen = null;
    const error = await failure(client().bulkConvert(Array.from({ length: 5001 }, () => "1.1.1.1")));
    expect(error.message).toBe(MESSAGES.ipsCount);
    expect(seen).toBeNull();
  });

  it("turns 401 Origin not allowed into its own kind", async () => {
    next = { status: 401, body: envelope(401, MESSAGES.originNotAllowed, null) };
    const error = await failure(client().convert("1.1.1.1"));
    expect(error).toMatchObject({ kind: "origin-not-allowed", status: 401, message: MESSAGES.originNotAllowed, retryAt: null });
  });

  it("turns 429 into a retry time from Retry-After", async () => {
    next = { status: 429, body: envelope(429, MESSAGES.tooManyRequests, null), headers: { "retry-after": "20" } };
    const error = await createClient({ baseUrl, apiKey: "k", now: () => 5_000 }).convert("1.1.1.1").catch((e) => e);
    expect(error).toMatchObject({ kind: "rate-limited", retryAt: 25_000 });
  });

  it("keeps validation details of a 400", async () => {
    next = { status: 400, body: envelope(400, MESSAGES.invalidIp, null) };
    const error = await failure(client().convert("nope"));
    expect(error).toMatchObject({ kind: "invalid-request", message: MESSAGES.invalidIp });
  });

  it("says so when the answer is not an envelope (wrong Server URL)", async () => {
    next = { status: 200, body: "<html>hello</html>" };
    const error = await failure(client().convert("1.1.1.1"));
    expect(error.kind).toBe("bad-response");
  });

  it("says the server is unreachable when nothing listens", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const error = await failure(createClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: "k" }).convert());
    expect(error).toMatchObject({ kind: "unreachable", status: 0 });
  });
});
