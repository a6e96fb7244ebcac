/** GET and POST /convert over HTTP (docs/api.md#endpoints): answers, stored records, every body error. */
import { Agent, request } from "node:http";
import type { Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendNames } from "../helpers/backends.js";
import { convertResponseSchema, bulkConvertResponseSchema, conversionSchema } from "../../lib/schemas/api.js";
import { MESSAGES } from "../../lib/schemas/messages.js";
import { expectEnvelope, startApi, type ApiHarness } from "../helpers/api.js";

describe.each(backendNames)("convert (%s)", (backendName) => {
  let api: ApiHarness;
  let key: string;

  beforeAll(async () => {
    api = await startApi(backendName);
    key = (await api.project("scale")).secretKey;
  });
  afterAll(() => api.stop());

  const get = (id: string) => api.call(`/conversions/get?conversionId=${id}`, { key });

  it("GET converts an address, answers the Ip object and stores it", async () => {
    const answer = await api.call("/convert?ip=8.8.8.8", { key });
    expectEnvelope(answer, 200, MESSAGES.success);
    const ip = convertResponseSchema.parse(answer.body.data)!;
    expect(ip).toMatchObject({ ip: "8.8.8.8", type: "ipv4" });
    expect(ip.continent?.country?.code).toBe("US");
    // the bundled data asks for a DB-IP link wherever results are shown
    expect(answer.headers.get("x-data-sources")).toBe("DB-IP");
    const id = answer.headers.get("x-conversion-id")!;
    const stored = await get(id);
    expectEnvelope(stored, 200, MESSAGES.success);
    const conversion = conversionSchema.parse(stored.body.data);
    expect(conversion).toMatchObject({ uniqueId: id, status: "success" });
    expect(conversion.data).toEqual(ip);
    expect(conversion.completedAt).not.toBeNull();
    expect(conversion.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it("GET canonicalises IPv6 and keeps private addresses a success without location", async () => {
    const v6 = await api.call(`/convert?ip=${encodeURIComponent(" 2001:4860:4860:0:0:0:0:8888 ")}`, { key });
    expectEnvelope(v6, 200);
    expect(v6.body.data).toMatchObject({ ip: "2001:4860:4860::8888", type: "ipv6" });
    const mapped = await api.call(`/convert?ip=${encodeURIComponent("::ffff:8.8.8.8")}`, { key });
    expect(mapped.body.data.type).toBe("ipv6");
    const local = await api.call("/convert?ip=10.1.2.3", { key });
    expectEnvelope(local, 200, MESSAGES.success);
    expect(local.body.data).toMatchObject({ ip: "10.1.2.3", type: "ipv4", continent: null, asn: null });
  });

  it("GET without ip converts the caller's own address", async () => {
    // whitespace is trimmed (docs/api.md#conversion-records), so only-whitespace is empty too
    for (const path of ["/convert", "/convert?ip=", "/convert?ip=%20%09"]) {
      const answer = await api.call(path, { key });
      expectEnvelope(answer, 200);
      expect(answer.body.data.ip).toBe("127.0.0.1");
    }
  });

  it("GET answers 400 for an invalid address, and still stores it", async () => {
    for (const bad of ["not-an-ip", "010.0.0.1", "fe80::1%eth0", "10.0.0.0/8", "8.8.8.8:53", "example.com"]) {
      const answer = await api.call(`/convert?ip=${encodeURIComponent(bad)}`, { key });
      expectEnvelope(answer, 400, MESSAGES.invalidIp);
      expect(answer.body.data).toBeNull();
      const stored = await get(answer.headers.get("x-conversion-id")!);
      expect(stored.body.data).toMatchObject({ status: "invalid-ip-address", data: { ip: bad, type: null, continent: null } });
    }
  });

  it("POST converts in request order, duplicates included, one stored record each", async () => {
    const ips = ["8.8.8.8", "bogus", "1.1.1.1", "8.8.8.8"];
    const answer = await api.call("/convert", { key, json: { ips } });
    expectEnvelope(answer, 200, MESSAGES.success);
    const items = bulkConvertResponseSchema.parse(answer.body.data);
    expect(items.map((item) => item.ip)).toEqual(ips);
    expect(items[1]!.conversion).toBeNull();
    expect(items[0]!.conversion?.ip).toBe("8.8.8.8");
    expect(new Set(items.map((item) => item.conversionId)).size).toBe(4);
    const stored = await api.call("/conversions/get", { key, json: { conversionIds: items.map((item) => item.conversionId) } });
    expect(stored.body.data.conversions.map((c: { status: string }) => c.status)).toEqual(["success", "invalid-ip-address", "success", "success"]);
  });

  it("POST takes 5000 addresses", async () => {
    const ips = Array.from({ length: 5000 }, (_, i) => `11.${(i >> 8) & 255}.${i & 255}.1`);
    const answer = await api.call("/convert", { key, json: { ips } });
    expectEnvelope(answer, 200);
    expect(answer.body.data).toHaveLength(5000);
  });

  it("POST of 1000 addresses or more ends its connection after the answer; a smaller one keeps it", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const post = (count: number) =>
      new Promise<{ connection: string | undefined; socket: Socket; closed: Promise<void> }>((resolve, reject) => {
        const body = JSON.stringify({ ips: Array.from({ length: count }, (_, i) => `12.${(i >> 8) & 255}.${i & 255}.1`) });
        const req = request(`${api.server.url}/convert`, { method: "POST", agent, headers: { "x-api-key": key, "content-type": "application/json" } }, (res) => {
          const socket = res.socket;
          const closed = new Promise<void>((done) => socket.once("close", () => done()));
          res.resume().on("end", () => resolve({ connection: res.headers.connection, socket, closed }));
        });
        req.on("error", reject);
        req.end(body);
      });
    try {
      const small = await post(999);
      const again = await post(999);
      expect(small.connection).toBe("keep-alive");
      expect(again.socket).toBe(small.socket);
      const bulk = await post(1000);
      expect(bulk.connection).toBe("close");
      await bulk.closed;
      expect((await post(10)).socket).not.toBe(bulk.socket);
    } finally {
      agent.destroy();
    }
  });

  it("POST answers exactly the serialised answer, with its length, across chunks and multi-byte text", async () => {
    // enough items for many 64 KiB chunks, text of 1 to 3 UTF-8 bytes per unit, an item longer than a chunk
    const odd = ["Zürich", "東京 ü", "x".repeat(30_000), "\ud800lone", "a\u0000b", "😀 emoji"];
    const ips = Array.from({ length: 3000 }, (_, i) => (i % 500 === 7 ? odd[(i / 500) | 0]! : i % 3 ? `${1 + (i % 200)}.${i & 255}.${(i * 7) & 255}.9` : `2a00:${i.toString(16)}::1`));
    const res = await fetch(`${api.server.url}/convert`, { method: "POST", headers: { "x-api-key": key, "content-type": "application/json" }, body: JSON.stringify({ ips }) });
    const raw = Buffer.from(await res.arrayBuffer());
    expect([res.status, res.status === 200 || raw.toString()]).toEqual([200, true]);
    expect(Number(res.headers.get("content-length"))).toBe(raw.length);
    const text = raw.toString("utf8");
    const answer = JSON.parse(text);
    expect(text).toBe(JSON.stringify(answer));
    expect(Object.keys(answer)).toEqual(["success", "message", "code", "data", "_req"]);
    const items = bulkConvertResponseSchema.parse(answer.data);
    // NUL and unpaired surrogates are echoed (and stored) as U+FFFD
    expect(items.map((item) => item.ip)).toEqual(ips.map((ip) => ip.replace(/\u0000|\ud800/g, "\ufffd")));
    expect(items.filter((item) => item.conversion === null)).toHaveLength(odd.length);
  });

  it("POST refuses every malformed body with a message naming the problem and stores nothing", async () => {
    const before = (await api.call("/conversions/list?limit=1", { key })).body.data.totalCount;
    const cases: Array<[unknown, string]> = [
      [{}, MESSAGES.ipsNotStrings],
      [{ ips: "8.8.8.8" }, MESSAGES.ipsNotStrings],
      [{ ips: [1, 2] }, MESSAGES.ipsNotStrings],
      [{ ips: ["8.8.8.8", null] }, MESSAGES.ipsNotStrings],
      [[], MESSAGES.ipsNotStrings],
      [null, MESSAGES.ipsNotStrings],
      [{ ips: [] }, MESSAGES.ipsCount],
      [{ ips: Array.from({ length: 5001 }, () => "8.8.8.8") }, MESSAGES.ipsCount],
      // the count is judged before the items
      [{ ips: Array.from({ length: 5001 }, () => 8) }, MESSAGES.ipsCount],
    ];
    for (const [json, message] of cases) {
      expectEnvelope(await api.call("/convert", { key, json }), 400, message);
    }
    expectEnvelope(await api.call("/convert", { key, body: "{\"ips\": [", headers: { "content-type": "application/json" } }), 400, MESSAGES.invalidJson);
    expectEnvelope(await api.call("/convert", { key, body: JSON.stringify({ ips: ["8.8.8.8"] }) }), 415, MESSAGES.unsupportedMediaType);
    expectEnvelope(await api.call("/convert", { key, body: JSON.stringify({ ips: ["8.8.8.8"] }), headers: { "content-type": "text/plain" } }), 415);
    const huge = JSON.stringify({ ips: ["x".repeat(1024 * 1024)] });
    expectEnvelope(await api.call("/convert", { key, body: huge, headers: { "content-type": "application/json" } }), 413, MESSAGES.bodyTooLarge);
    const after = (await api.call("/conversions/list?limit=1", { key })).body.data.totalCount;
    expect(after).toBe(before);
  });
});

describe.each(backendNames)("convert with a broken city database (%s)", (backendName) => {
  let api: ApiHarness;
  let key: string;

  beforeAll(async () => {
    api = await startApi(backendName, { IPATLAS_CITY_DB: "/nonexistent/GeoLite2-City.mmdb" });
    key = (await api.project("scale")).secretKey;
  });
  afterAll(() => api.stop());

  it("answers 200 Conversion failed with data null and stores status failed with ip and type", async () => {
    const answer = await api.call("/convert?ip=8.8.8.8", { key });
    expectEnvelope(answer, 200, MESSAGES.conversionFailed);
    expect(answer.body.data).toBeNull();
    const stored = await api.call(`/conversions/get?conversionId=${answer.headers.get("x-conversion-id")}`, { key });
    expect(stored.body.data).toMatchObject({ status: "failed", data: { ip: "8.8.8.8", type: "ipv4", continent: null, asn: null } });
    const bulk = await api.call("/convert", { key, json: { ips: ["8.8.8.8", "10.0.0.1"] } });
    expectEnvelope(bulk, 200, MESSAGES.success);
    expect(bulk.body.data[0].conversion).toBeNull();
    expect(bulk.body.data[1].conversion).toMatchObject({ ip: "10.0.0.1" });
  });
});
