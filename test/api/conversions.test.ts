/** GET/POST /conversions/get and GET /conversions/list over HTTP (docs/api.md#endpoints): select, pages, ipSearch, errors. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { backendNames } from "../helpers/backends.js";
import { listConversionsResponseSchema } from "../../lib/schemas/api.js";
import { MESSAGES } from "../../lib/schemas/messages.js";
import { bareIpObject } from "../../lib/schemas/ip-object.js";
import { expectEnvelope, startApi, type ApiHarness } from "../helpers/api.js";

const IPS = ["10.0.0.1", "10.0.0.2", "10.200.1.1", "192.168.1.1", "100.64.0.1", "2001:db8::1", "2001:db8:1::5", "2002::1", "8.8.8.8", "8.8.4.4", "not-an-ip", "10.0.0.1"];

describe.each(backendNames)("conversions (%s)", (backendName) => {
  let api: ApiHarness;
  let key: string;
  let otherKey: string;
  let ids: string[];
  /** each convert answer's data, as its JSON text */
  let converted: string[];

  beforeAll(async () => {
    api = await startApi(backendName);
    key = (await api.project("scale", "reader")).secretKey;
    otherKey = (await api.project("scale", "other")).secretKey;
    // one request per address so that "newest first" has a well-defined order
    ids = [];
    converted = [];
    for (const ip of IPS) {
      const answer = await api.call(`/convert?ip=${encodeURIComponent(ip)}`, { key });
      ids.push(answer.headers.get("x-conversion-id")!);
      converted.push(JSON.stringify(answer.body.data));
    }
  });
  afterAll(() => api.stop());

  const list = (query: string, k = key) => api.call(`/conversions/list${query}`, { key: k });

  it("reads every conversion back as it was converted, key order included, through each read route", async () => {
    // the routes write stored data as text from the stored parts (docs/storage.md "Compact records")
    const listed = (await list(`?limit=${IPS.length}`)).body.data.conversions.reverse();
    const posted = (await api.call("/conversions/get", { key, json: { conversionIds: ids } })).body.data.conversions;
    for (let i = 0; i < IPS.length; i++) {
      const got = (await api.call(`/conversions/get?conversionId=${ids[i]}`, { key })).body.data;
      expect(got.uniqueId, IPS[i]).toBe(ids[i]);
      // an invalid input's answer carries no data; its record does (the input, the rest null)
      const expected = converted[i] === "null" ? JSON.stringify(bareIpObject(IPS[i]!, null)) : converted[i];
      expect(JSON.stringify(got.data), IPS[i]).toBe(expected);
      expect(JSON.stringify(listed[i].data), IPS[i]).toBe(expected);
      expect(JSON.stringify(posted.find((c: { uniqueId: string }) => c.uniqueId === ids[i]).data), IPS[i]).toBe(expected);
    }
  });

  describe("GET /conversions/get", () => {
    it("cuts data to select; repeated select parameters merge", async () => {
      const answer = await api.call(`/conversions/get?conversionId=${ids[8]}&select=ip,asn.number&select=continent.country.code`, { key });
      expectEnvelope(answer, 200, MESSAGES.success);
      expect(answer.body.data.data).toEqual({
        ip: "8.8.8.8",
        continent: { country: { code: "US" } },
        asn: { number: 15169 },
      });
      const nullParent = await api.call(`/conversions/get?conversionId=${ids[0]}&select=ip,continent.country.city.name`, { key });
      expect(nullParent.body.data.data).toEqual({ ip: "10.0.0.1", continent: null });
    });

    it("answers Conversion not found for unknown ids and other projects' conversions", async () => {
      for (const [id, k] of [[randomUUID(), key], [ids[0]!, otherKey]] as const) {
        const answer = await api.call(`/conversions/get?conversionId=${id}`, { key: k });
        expectEnvelope(answer, 200, MESSAGES.conversionNotFound);
        expect(answer.body.data).toBeNull();
      }
    });

    it("400 for a missing id, a non-uuid id and unknown select fields", async () => {
      expectEnvelope(await api.call("/conversions/get", { key }), 400, MESSAGES.conversionIdRequired);
      expectEnvelope(await api.call("/conversions/get?conversionId=", { key }), 400, MESSAGES.conversionIdRequired);
      const bad = await api.call("/conversions/get?conversionId=123", { key });
      expectEnvelope(bad, 400, MESSAGES.invalidConversionIds);
      expect(bad.body.data).toEqual({ invalidIds: ["123"] });
      const select = await api.call(`/conversions/get?conversionId=${ids[0]}&select=ip,nope,continent`, { key });
      expectEnvelope(select, 400, MESSAGES.invalidSelect);
      expect(select.body.data).toEqual({ invalidFields: ["nope", "continent"] });
    });
  });

  describe("POST /conversions/get", () => {
    it("answers in request order, duplicates once, unknown and foreign ids left out", async () => {
      const foreign = (await api.call("/convert?ip=1.1.1.1", { key: otherKey })).headers.get("x-conversion-id")!;
      const answer = await api.call("/conversions/get?select=ip", {
        key,
        json: { conversionIds: [ids[3], ids[1], randomUUID(), ids[3], foreign, ids[1]!.toUpperCase()] },
      });
      expectEnvelope(answer, 200, MESSAGES.success);
      expect(answer.body.data.conversions.map((c: { uniqueId: string }) => c.uniqueId)).toEqual([ids[3], ids[1]]);
      expect(answer.body.data.conversions[0].data).toEqual({ ip: "192.168.1.1" });
    });

    it("400 for every malformed list", async () => {
      const cases: Array<[unknown, string]> = [
        [{}, MESSAGES.conversionIdsNotArray],
        [{ conversionIds: "x" }, MESSAGES.conversionIdsNotArray],
        [[ids[0]], MESSAGES.conversionIdsNotArray],
        [{ conversionIds: [] }, MESSAGES.conversionIdsCount],
        [{ conversionIds: Array.from({ length: 101 }, () => randomUUID()) }, MESSAGES.conversionIdsCount],
      ];
      for (const [json, message] of cases) expectEnvelope(await api.call("/conversions/get", { key, json }), 400, message);
      const invalid = await api.call("/conversions/get", { key, json: { conversionIds: [ids[0], "nope", 7, ids[1], "also-bad"] } });
      expectEnvelope(invalid, 400, MESSAGES.invalidConversionIds);
      expect(invalid.body.data).toEqual({ invalidIds: ["nope", 7, "also-bad"] });
      expectEnvelope(await api.call("/conversions/get", { key, body: "{", headers: { "content-type": "application/json" } }), 400, MESSAGES.invalidJson);
      expectEnvelope(await api.call("/conversions/get", { key, body: "{}" }), 415);
      expectEnvelope(await api.call("/conversions/get?select=bad", { key, json: { conversionIds: [ids[0]] } }), 400, MESSAGES.invalidSelect);
    });
  });

  describe("GET /conversions/list", () => {
    it("is newest first with defaults offset 0 and limit 10", async () => {
      const answer = await list("");
      expectEnvelope(answer, 200, MESSAGES.success);
      const page = listConversionsResponseSchema.parse(answer.body.data);
      expect(page.totalCount).toBe(IPS.length);
      expect(page.conversions.map((c) => c.uniqueId)).toEqual([...ids].reverse().slice(0, 10));
      expect(page.hasMore).toBe(true);
    });

    it("pages with offset and limit; hasMore turns false on the last page", async () => {
      const last = (await list("?offset=10&limit=5")).body.data;
      expect(last.conversions.map((c: { uniqueId: string }) => c.uniqueId)).toEqual([ids[1], ids[0]]);
      expect(last.hasMore).toBe(false);
      const exact = (await list(`?offset=0&limit=${IPS.length}`)).body.data;
      expect(exact.hasMore).toBe(false);
      const beyond = (await list("?offset=500")).body.data;
      expect(beyond).toEqual({ conversions: [], hasMore: false, totalCount: IPS.length });
    });

    it("filters by prefix, case-insensitively, and by CIDR", async () => {
      const ipsOf = async (query: string) => {
        const answer = await list(`?limit=50&select=ip&ipSearch=${encodeURIComponent(query)}`);
        expectEnvelope(answer, 200);
        return answer.body.data.conversions.map((c: { data: { ip: string } }) => c.data.ip).sort();
      };
      expect(await ipsOf("10.0.")).toEqual(["10.0.0.1", "10.0.0.1", "10.0.0.2"]);
      expect(await ipsOf("NOT-")).toEqual(["not-an-ip"]);
      expect(await ipsOf("10.0.0.0/8")).toEqual(["10.0.0.1", "10.0.0.1", "10.0.0.2", "10.200.1.1"]);
      expect(await ipsOf("8.8.0.0/16")).toEqual(["8.8.4.4", "8.8.8.8"]);
      expect(await ipsOf("2001:db8::/32")).toEqual(["2001:db8:1::5", "2001:db8::1"]);
      expect(await ipsOf("0.0.0.0/0")).toHaveLength(8);
      expect(await ipsOf("172.16.0.0/12")).toEqual([]);
      const counted = (await list("?ipSearch=10.0.0.0/8&limit=1")).body.data;
      expect(counted.totalCount).toBe(4);
      expect(counted.hasMore).toBe(true);
    });

    it("400 naming the parameter for every bad offset or limit, never clamping", async () => {
      for (const query of ["offset=-1", "offset=abc", "offset=1.5", "offset=1e3"]) {
        expectEnvelope(await list(`?${query}`), 400, MESSAGES.invalidOffset);
      }
      for (const query of ["limit=0", "limit=51", "limit=abc", "limit=-5", "limit=2.5"]) {
        expectEnvelope(await list(`?${query}`), 400, MESSAGES.invalidLimit);
      }
      const select = await list("?select=ip,city");
      expectEnvelope(select, 400, MESSAGES.invalidSelect);
      expect(select.body.data).toEqual({ invalidFields: ["city"] });
    });

    it("shows only the key's own project", async () => {
      const other = (await list("", otherKey)).body.data;
      expect(other.totalCount).toBe(1);
    });
  });
});
