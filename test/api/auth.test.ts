/** Keys, origins, CORS and the public-key limit over HTTP (docs/api.md#keys-and-origins), with CLI changes reaching the running server. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendNames } from "../helpers/backends.js";
import { MESSAGES } from "../../lib/schemas/messages.js";
import { expectEnvelope, startApi, type ApiHarness } from "../helpers/api.js";

const ORIGIN = "https://shop.example.com";

/** CLI runs and hundreds of requests on a shared two-core machine */
const SLOW = 120_000;

describe.each(backendNames)("authentication (%s)", (backendName) => {
  let api: ApiHarness;
  let projectId: string;
  let secretKey: string;
  let publicKey: string;
  let websiteId: string;

  beforeAll(async () => {
    api = await startApi(backendName, { IPATLAS_PUBLIC_RATE_LIMIT: "5" });
    ({ id: projectId, secretKey } = await api.project("scale"));
    const added = await api.server.cli("website", "add", "--project", projectId, "--origin", "*.example.com");
    publicKey = added.publicKey;
    websiteId = added.website.id;
  });
  afterAll(() => api.stop());

  /** polls until the answer has the status: CLI changes must arrive within one second */
  async function statusWithin(path: string, init: Parameters<ApiHarness["call"]>[1], status: number, ms = 1000) {
    const until = Date.now() + ms;
    let last = await api.call(path, init);
    while (last.status !== status && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 50));
      last = await api.call(path, init);
    }
    return last;
  }

  it("401 Missing API key / Invalid API key on every API route", async () => {
    for (const path of ["/convert?ip=8.8.8.8", "/conversions/list", "/conversions/get?conversionId=x"]) {
      expectEnvelope(await api.call(path), 401, MESSAGES.missingKey);
      expectEnvelope(await api.call(path, { key: "ipa_sk_" + "0".repeat(32) }), 401, MESSAGES.invalidKey);
      expectEnvelope(await api.call(path, { key: "garbage" }), 401, MESSAGES.invalidKey);
    }
    expectEnvelope(await api.call("/convert", { json: { ips: ["8.8.8.8"] } }), 401, MESSAGES.missingKey);
  }, SLOW);

  it("public keys need an Origin the website pattern allows", async () => {
    const ok = await api.call("/convert?ip=8.8.8.8", { key: publicKey, origin: ORIGIN });
    expectEnvelope(ok, 200);
    expect(ok.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    expect(ok.headers.get("vary")).toContain("Origin");
    expect(ok.headers.get("access-control-expose-headers")).toMatch(/x-request-id/);
    const bulk = await api.call("/convert", { key: publicKey, origin: ORIGIN, json: { ips: ["1.1.1.1"] } });
    expectEnvelope(bulk, 200);
    for (const origin of [undefined, "https://example.com", "https://example.org", "http://shop.example.com:8080", "null"]) {
      const refused = await api.call("/convert?ip=8.8.8.8", { key: publicKey, origin });
      expectEnvelope(refused, 401, MESSAGES.originNotAllowed);
      expect(refused.body.data).toEqual({ origin: origin ?? null });
      // readable by the refused page itself, so the widget can name the origin to register
      expect(refused.headers.get("access-control-allow-origin")).toBe(origin && origin !== "null" ? origin : null);
    }
  }, SLOW);

  it("public keys may only convert: 403 on /conversions/*", async () => {
    for (const path of ["/conversions/list", "/conversions/get?conversionId=x"]) {
      expectEnvelope(await api.call(path, { key: publicKey, origin: ORIGIN }), 403, MESSAGES.publicKeyForbidden);
    }
    expectEnvelope(await api.call("/conversions/get", { key: publicKey, origin: ORIGIN, json: { conversionIds: [] } }), 403);
  }, SLOW);

  it("secret-key answers carry no Access-Control-Allow-Origin", async () => {
    const answer = await api.call("/convert?ip=8.8.8.8", { key: secretKey, origin: ORIGIN });
    expectEnvelope(answer, 200);
    expect(answer.headers.get("access-control-allow-origin")).toBeNull();
  }, SLOW);

  it("answers a preflight on every API route with 204 and no key", async () => {
    for (const path of ["/convert", "/conversions/get", "/conversions/list"]) {
      const res = await fetch(api.server.url + path, {
        method: "OPTIONS",
        headers: { origin: ORIGIN, "access-control-request-method": "POST", "access-control-request-headers": "x-api-key, content-type" },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get("access-control-allow-origin")).toBe(ORIGIN);
      expect(res.headers.get("access-control-allow-methods")).toBe("GET, POST, OPTIONS");
      expect(res.headers.get("access-control-allow-headers")).toBe("x-api-key, content-type");
      expect(res.headers.get("access-control-max-age")).toBe("7200");
      expect(res.headers.get("vary")).toBe("Origin");
    }
  }, SLOW);

  it("limits a public key per client address: 429 Too many requests with Retry-After", async () => {
    const added = await api.server.cli("website", "add", "--project", projectId, "--origin", "localhost:5173");
    const init = { key: added.publicKey, origin: "http://localhost:5173" };
    const statuses: number[] = [];
    // a new key is found on its first use: no cache to wait for
    for (let i = 0; i < 5; i++) statuses.push((await api.call("/convert?ip=8.8.8.8", init)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    const refused = await api.call("/convert?ip=8.8.8.8", init);
    expectEnvelope(refused, 429, MESSAGES.tooManyRequests);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    // secret keys are not limited by it
    for (let i = 0; i < 7; i++) expect((await api.call("/convert?ip=8.8.8.8", { key: secretKey })).status).toBe(200);
  }, SLOW);

  it("keys of another project see only their own project", async () => {
    const other = await api.project("scale", "other");
    const mine = (await api.call("/convert?ip=8.8.8.8", { key: secretKey })).headers.get("x-conversion-id")!;
    const answer = await api.call(`/conversions/get?conversionId=${mine}`, { key: other.secretKey });
    expectEnvelope(answer, 200, MESSAGES.conversionNotFound);
  }, SLOW);

  it("rolled, revoked and website-removed keys stop working within a second, without a restart", async () => {
    const created = await api.server.cli("key", "create", "--project", projectId, "--name", "ci");
    const init = { key: created.secretKey };
    expectEnvelope(await statusWithin("/conversions/list", init, 200), 200);

    const rolled = await api.server.cli("key", "roll", created.key.id);
    expect(rolled.secretKey).toMatch(/^ipa_sk_/);
    expectEnvelope(await statusWithin("/conversions/list", init, 401), 401, MESSAGES.invalidKey);
    expectEnvelope(await statusWithin("/conversions/list", { key: rolled.secretKey }, 200), 200);

    await api.server.cli("key", "revoke", created.key.id);
    expectEnvelope(await statusWithin("/conversions/list", { key: rolled.secretKey }, 401), 401, MESSAGES.invalidKey);

    await api.server.cli("website", "remove", websiteId);
    const removed = await statusWithin("/convert?ip=8.8.8.8", { key: publicKey, origin: ORIGIN }, 401);
    expectEnvelope(removed, 401, MESSAGES.invalidKey);
  }, SLOW);
});
