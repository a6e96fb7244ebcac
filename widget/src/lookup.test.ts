import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bareIpObject } from "../../lib/schemas/ip-object.js";
import { MESSAGES } from "../../lib/schemas/messages.js";
import { createLookupCache, type StorageLike } from "./cache.js";
import { createLookup, NETWORK_ERROR } from "./lookup.js";

// A real HTTP server on loopback standing in for GET /convert, so the lookup's own fetch, dedupe
// and caching are exercised over the wire.
let server: Server;
let baseUrl: string;
let requests: IncomingMessage[] = [];
let inFlight = 0;
let mostInFlight = 0;

function envelope(code: number, message: string, data: unknown) {
  return JSON.stringify({ success: code < 400, message, code, data, _req: { reqId: "r", resTime: 1 } });
}

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(req);
    mostInFlight = Math.max(mostInFlight, ++inFlight);
    res.on("finish", () => inFlight--);
    const url = new URL(req.url!, "http://x");
    const key = req.headers["x-api-key"];
    // Answer slowly enough that concurrent lookups overlap.
    setTimeout(() => {
      res.setHeader("content-type", "application/json");
      if (key === "ipa_pk_other") return res.writeHead(401).end(envelope(401, MESSAGES.originNotAllowed, null));
      if (key === "ipa_pk_broken") return res.writeHead(500).end(envelope(500, MESSAGES.internal, null));
      if (key === "ipa_pk_maxmind") res.setHeader("x-data-sources", "DB-IP, MaxMind, Unknown");
      res.writeHead(200).end(envelope(200, MESSAGES.success, bareIpObject(url.searchParams.get("ip") ?? "127.0.0.1", "ipv4")));
    }, 30);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  requests = [];
  mostInFlight = 0;
});

function memoryStorage(): StorageLike {
  const items = new Map<string, string>();
  return { getItem: (k) => items.get(k) ?? null, setItem: (k, v) => void items.set(k, v), removeItem: (k) => void items.delete(k) };
}

describe("createLookup", () => {
  it("sends the key and the address and shares one request between concurrent callers", async () => {
    const lookup = createLookup({ baseUrl, cache: createLookupCache(memoryStorage()) });
    const [a, b, c] = await Promise.all([lookup("ipa_pk_a", "8.8.8.8"), lookup("ipa_pk_a", "8.8.8.8"), lookup("ipa_pk_a", "8.8.8.8")]);
    expect(requests).toHaveLength(1);
    expect(requests[0]!.url).toBe("/convert?ip=8.8.8.8");
    expect(requests[0]!.headers["x-api-key"]).toBe("ipa_pk_a");
    expect(a).toEqual({ ok: true, data: bareIpObject("8.8.8.8", "ipv4"), sources: [] });
    expect(b).toBe(a);
    expect(c).toBe(a);
  });

  it("keeps one request in flight per page: different addresses take turns", async () => {
    const lookup = createLookup({ baseUrl, cache: createLookupCache(memoryStorage()) });
    const results = await Promise.all(["8.8.8.8", "1.1.1.1", "", "8.8.8.8", "9.9.9.9"].map((ip) => lookup("ipa_pk_a", ip)));
    expect(requests.map((r) => r.url)).toEqual(["/convert?ip=8.8.8.8", "/convert?ip=1.1.1.1", "/convert", "/convert?ip=9.9.9.9"]);
    expect(mostInFlight).toBe(1);
    expect(results.map((r) => r.ok && r.data.ip)).toEqual(["8.8.8.8", "1.1.1.1", "127.0.0.1", "8.8.8.8", "9.9.9.9"]);
  });

  it("keeps the data sources the server names, for the attribution", async () => {
    const lookup = createLookup({ baseUrl, cache: createLookupCache(memoryStorage()) });
    expect(await lookup("ipa_pk_maxmind", "8.8.8.8")).toMatchObject({ ok: true, sources: ["DB-IP", "MaxMind"] });
  });

  it("asks for the visitor without an ip parameter", async () => {
    const lookup = createLookup({ baseUrl, cache: createLookupCache(memoryStorage()) });
    await lookup("ipa_pk_a", "");
    expect(requests.map((r) => r.url)).toEqual(["/convert"]);
  });

  it("answers a new page from sessionStorage within the TTL", async () => {
    const storage = memoryStorage();
    await createLookup({ baseUrl, cache: createLookupCache(storage) })("ipa_pk_a", "");
    const secondPage = createLookup({ baseUrl, cache: createLookupCache(storage) });
    const result = await secondPage("ipa_pk_a", "");
    expect(result.ok).toBe(true);
    expect(requests).toHaveLength(1);
  });

  it("remembers a refused key and does not ask again", async () => {
    const storage = memoryStorage();
    const lookup = createLookup({ baseUrl, cache: createLookupCache(storage) });
    const first = await lookup("ipa_pk_other", "");
    await lookup("ipa_pk_other", "");
    await createLookup({ baseUrl, cache: createLookupCache(storage) })("ipa_pk_other", "");
    expect(first).toMatchObject({ ok: false, error: { code: 401, message: MESSAGES.originNotAllowed } });
    expect(requests).toHaveLength(1);
  });

  it("keeps a server error for the page only: the page does not retry, the next page does", async () => {
    const storage = memoryStorage();
    const lookup = createLookup({ baseUrl, cache: createLookupCache(storage) });
    expect(await lookup("ipa_pk_broken", "")).toMatchObject({ ok: false, error: { code: 500 } });
    await lookup("ipa_pk_broken", "");
    expect(requests).toHaveLength(1);
    await createLookup({ baseUrl, cache: createLookupCache(storage) })("ipa_pk_broken", "");
    expect(requests).toHaveLength(2);
  });

  it("reports an unreachable server as a network error", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const lookup = createLookup({ baseUrl: `http://127.0.0.1:${port}/`, cache: createLookupCache(memoryStorage()) });
    expect(await lookup("ipa_pk_a", "")).toMatchObject({ ok: false, error: { code: 0, message: NETWORK_ERROR } });
  });
});
