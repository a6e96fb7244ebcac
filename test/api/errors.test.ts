/** Routes and methods outside the happy path (docs/api.md#other-errors, #operations): always the envelope, never bare text. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "node:net";
import { backendNames } from "../helpers/backends.js";
import { healthResponseSchema } from "../../lib/schemas/api.js";
import { MESSAGES } from "../../lib/schemas/messages.js";
import { expectEnvelope, startApi, type ApiHarness } from "../helpers/api.js";

describe.each(backendNames)("errors and health (%s)", (backendName) => {
  let api: ApiHarness;
  let key: string;

  beforeAll(async () => {
    api = await startApi(backendName);
    key = (await api.project("scale")).secretKey;
  });
  afterAll(() => api.stop());

  it("GET /healthz needs no key and lists the geolocation databases", async () => {
    const answer = await api.call("/healthz");
    expectEnvelope(answer, 200);
    const health = healthResponseSchema.parse(answer.body.data);
    expect(health.databases.length).toBeGreaterThan(0);
  });

  it("404 Not found for unknown routes, with or without a key", async () => {
    for (const path of ["/nope", "/conversions", "/conversions/nope", "/convert/extra"]) {
      expectEnvelope(await api.call(path), 404, MESSAGES.notFound);
      expectEnvelope(await api.call(path, { key }), 404, MESSAGES.notFound);
    }
  });

  it("HEAD answers carry x-request-id and x-api-version like their GET, errors included", async () => {
    const cases: Array<[string, string | undefined, number]> = [
      ["/healthz", undefined, 200],
      ["/nope", undefined, 404],
      ["/convert?ip=8.8.8.8", undefined, 401],
      ["/conversions/list", key, 200],
      ["/conversions/get?conversionId=x", key, 400],
    ];
    for (const [path, apiKey, status] of cases) {
      const res = await fetch(`${api.server.url}${path}`, { method: "HEAD", headers: apiKey ? { "x-api-key": apiKey } : {} });
      expect(res.status, path).toBe(status);
      expect(res.headers.get("x-api-version"), path).toBe("1.0.0");
      expect(res.headers.get("x-request-id"), path).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it("400 for bodies nested too deeply on both POST routes, never a 500", async () => {
    const deep = "[".repeat(4000) + "]".repeat(4000);
    for (const [path, body] of [["/conversions/get", `{"conversionIds":${deep}}`], ["/convert", `{"ips":["8.8.8.8",${deep}]}`]] as const) {
      const answer = await api.call(path, { key, body, headers: { "content-type": "application/json" } });
      expectEnvelope(answer, 400, "Request body is nested too deeply");
    }
  });

  it("405 Method not allowed with Allow for known routes", async () => {
    const cases: Array<[string, string, string]> = [
      ["/convert", "DELETE", "GET, POST, OPTIONS, HEAD"],
      ["/convert", "PUT", "GET, POST, OPTIONS, HEAD"],
      ["/conversions/list", "POST", "GET, OPTIONS, HEAD"],
      ["/conversions/get", "PATCH", "GET, POST, OPTIONS, HEAD"],
      ["/healthz", "POST", "GET, HEAD"],
    ];
    for (const [path, method, allow] of cases) {
      const answer = await api.call(path, { method, key });
      expectEnvelope(answer, 405, MESSAGES.methodNotAllowed);
      expect(answer.headers.get("allow")).toBe(allow);
    }
  });

  it("413 for bodies over 1 MiB, also when sent chunked without Content-Length", async () => {
    const big = JSON.stringify({ ips: Array(70_000).fill("255.255.255.255") });
    expect(big.length).toBeGreaterThan(1024 * 1024);
    expectEnvelope(await api.call("/convert", { key, body: big, headers: { "content-type": "application/json" } }), 413, MESSAGES.bodyTooLarge);
    // sent at a pace, so the server refuses while the client is still sending: the client must
    // get to read the 413, not a reset connection (json-body.ts reads and drops the rest)
    const chunks = new TextEncoder().encode(big);
    let sent = 0;
    const stream = new ReadableStream({
      async pull(controller) {
        if (sent >= chunks.length) return controller.close();
        if (sent > 1024 * 1024) await new Promise((resolve) => setTimeout(resolve, 20));
        controller.enqueue(chunks.subarray(sent, sent + 16384));
        sent += 16384;
      },
    });
    const res = await fetch(api.server.url + "/convert", {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(413);
    expect((await res.json()).message).toBe(MESSAGES.bodyTooLarge);
  });

  it("415 for POSTs without a JSON content type", async () => {
    expectEnvelope(await api.call("/convert", { key, body: "ips=1.1.1.1", headers: { "content-type": "application/x-www-form-urlencoded" } }), 415, MESSAGES.unsupportedMediaType);
    expectEnvelope(await api.call("/conversions/get", { key, method: "POST" }), 415, MESSAGES.unsupportedMediaType);
  });

  it("a request Node's HTTP parser refuses still gets the envelope", async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(api.server.port, "127.0.0.1", () => socket.write("GET /convert HTTP/1.1\r\nx-api-key: a\x01b\r\n\r\n"));
      let out = "";
      socket.on("data", (d) => (out += d));
      socket.on("end", () => resolve(out));
      socket.on("error", reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4))).toMatchObject({ success: false, code: 400, data: null });
  });

  it("odd query strings never cause a 500", async () => {
    for (const path of [
      "/convert?ip=%00",
      "/convert?ip=%ED%A0%80",
      `/convert?ip=${"a".repeat(5000)}`,
      "/convert?ip=%E2%80%8B8.8.8.8",
      "/conversions/list?ipSearch=%00%25_",
      "/conversions/list?ipSearch=999.0.0.0/8",
      "/conversions/list?ipSearch=::/0",
      "/conversions/list?offset=99999999999999999999",
      "/conversions/get?conversionId=%FF",
    ]) {
      const answer = await api.call(path, { key });
      expect(answer.status, path).toBeLessThan(500);
      expect(answer.body.code).toBe(answer.status);
    }
    const bulk = await api.call("/convert", { key, body: '{"ips":["\\u0000","\\ud800x","8.8.8.8"]}', headers: { "content-type": "application/json" } });
    expectEnvelope(bulk, 200);
    expect(bulk.body.data.map((item: { ip: string }) => item.ip)).toEqual(["\uFFFD", "\uFFFDx", "8.8.8.8"]);
  });
});
