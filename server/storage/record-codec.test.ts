import { describe, expect, it } from "vitest";
import { parseIp } from "../../lib/ip/parse.js";
import { bareIpObject, type IpObject } from "../../lib/schemas/ip-object.js";
import { decodeRecord, encodeRecord, recordJson, recordParts, type EncodedRecord } from "./record-codec.js";
import { sampleIpObject } from "../../test/helpers/sample-conversions.js";

/** a row encoded from an Ip object alone, as the storage tests and stored rows without the engine's parts have it */
const encodeData = (data: IpObject, startedAt: number) => encodeRecord({ status: "success", data, startedAt });

/** decodes the record, checking on the way that its text (recordJson) is the decoded object's JSON */
const roundTrip = (record: EncodedRecord, startedAt: number) => {
  const columns = { ...record, locationJson: record.location.json, networkJson: record.network.json };
  const decoded = decodeRecord(columns, startedAt);
  expect(recordJson(columns, startedAt)).toBe(JSON.stringify(decoded));
  return decoded;
};

describe("record codec", () => {
  const startedAt = Date.parse("2026-11-22T03:04:05.678Z");

  it("round-trips a full Ip object with nothing in extra", () => {
    for (let variant = 0; variant < 12; variant++) {
      const data = sampleIpObject(variant % 2 ? "2001:db8::1" : "8.8.8.8", startedAt, variant);
      const record = encodeData(data, startedAt);
      expect(record.extra).toBeNull();
      expect(roundTrip(record, startedAt)).toStrictEqual(data);
    }
  });

  it("shares the location part between rows that differ only in ip and time", () => {
    const a = encodeData(sampleIpObject("1.2.3.4", startedAt, 3), startedAt);
    const b = encodeData(sampleIpObject("5.6.7.8", startedAt + 3_600_000, 3), startedAt + 3_600_000);
    expect(a.location.key).toEqual(b.location.key);
    expect(a.network.key).toEqual(b.network.key);
    expect(a.location.json).not.toContain("time_now\":\"");
  });

  it("keeps one time_now text exact for rows started in its second and in the next", () => {
    const data = sampleIpObject("1.2.3.4", startedAt, 4);
    const second = Math.floor(startedAt / 1000) * 1000;
    for (const at of [startedAt, second, second + 999, second + 1000, second + 2500, startedAt]) {
      const record = encodeData(data, at);
      expect(record.extra, String(at)).toBeNull();
      expect(roundTrip(record, at), String(at)).toStrictEqual(data);
    }
  });

  it("keeps negative and half-hour offsets exact", () => {
    const data = sampleIpObject("1.2.3.4", startedAt, 2);
    data.continent!.country!.city!.timezone!.time_now = "2026-11-21T22:04:05-05:00";
    const record = encodeData(data, startedAt);
    expect(record.tzOffset).toBe(-300);
    expect(record.extra).toBeNull();
    expect(roundTrip(record, startedAt)).toStrictEqual(data);
  });

  it("stores what the compact columns cannot express in extra, still exact", () => {
    const zulu = sampleIpObject("1.2.3.4", startedAt, 0);
    zulu.continent!.country!.city!.timezone!.time_now = "2026-11-22T03:04:05Z";
    const oddCompletion = sampleIpObject("1.2.3.4", startedAt, 1);
    oddCompletion.completion_time = { miliseconds: 1.5, seconds: 0.002 };
    const subMicrosecond = sampleIpObject("1.2.3.4", startedAt, 1);
    subMicrosecond.completion_time = { miliseconds: 0.0123456, seconds: 0.0000123456 };
    const wrongType = { ...bareIpObject("not-an-ip", "ipv4") };
    for (const data of [zulu, oddCompletion, subMicrosecond, wrongType]) {
      const record = encodeData(data, startedAt);
      expect(record.extra).not.toBeNull();
      expect(roundTrip(record, startedAt)).toStrictEqual(data);
    }
  });

  it("round-trips invalid and failed inputs", () => {
    for (const data of [bareIpObject("  hello ", null), bareIpObject("10.0.0.1", "ipv4"), bareIpObject("::ffff:8.8.8.8", "ipv6")]) {
      const record = encodeData(data, startedAt);
      expect(record.extra).toBeNull();
      expect(roundTrip(record, startedAt)).toStrictEqual(data);
    }
  });
});

describe("a stored record as text", () => {
  const startedAt = Date.parse("2026-11-22T03:04:05.678Z");
  const columns = { ip: "1.2.3.4", ipKey: new Uint8Array([4, 1, 2, 3, 4]), tzOffset: 60, timeShift: 0, completionUs: 1234, extra: null };

  it("is the decoded object's JSON whatever the stored texts' spacing and key order", () => {
    // a part's text as another writer might have left it: spaces, keys in another order
    const locationJson = JSON.stringify({ continent: { code: "EU", country: { city: { timezone: { time_now: null, name: "Europe/Paris" }, name: "Paris" } } }, is_eu: true }, null, 1);
    const networkJson = '{ "asn": {"number": 3215, "name": "Orange"}, "registered_country": null }';
    for (const row of [
      { ...columns, locationJson, networkJson },
      { ...columns, locationJson: null, networkJson: null },
      { ...columns, locationJson: JSON.stringify({ is_eu: null, continent: { code: "AS", country: { city: { timezone: null } } } }), networkJson, tzOffset: null, completionUs: null },
      { ...columns, ip: "Not An IP", ipKey: null, locationJson: null, networkJson: null, extra: JSON.stringify({ i: "Not An IP", c: null }) },
    ]) {
      expect(recordJson(row, startedAt)).toBe(JSON.stringify(decodeRecord(row, startedAt)));
      // the second time from the texts kept per part
      expect(recordJson(row, startedAt + 61_000)).toBe(JSON.stringify(decodeRecord(row, startedAt + 61_000)));
    }
  });

  it("gives its ip and parts as the decoded object has them, one frozen copy per text", () => {
    const locationJson = JSON.stringify({ is_eu: true, continent: { code: "EU", country: { code: "FR", city: { name: "Paris", timezone: { name: "Europe/Paris", time_now: null } } } } });
    const networkJson = JSON.stringify({ registered_country: null, asn: { number: 3215, name: "Orange" } });
    const rows = [
      { ...columns, locationJson, networkJson },
      { ...columns, locationJson: null, networkJson: null },
      { ...columns, ip: "Not An IP", ipKey: null, locationJson: null, networkJson: null, extra: JSON.stringify({ i: "Not An IP", c: null }) },
      { ...columns, locationJson, networkJson, extra: JSON.stringify({ i: "1.2.3.4" }) },
    ];
    for (const row of rows) {
      const decoded = decodeRecord(row, startedAt);
      const parts = recordParts(row, startedAt);
      expect(parts.ip).toBe(decoded.ip);
      expect(parts.location.is_eu).toBe(decoded.is_eu);
      // every field but time_now, which differs per row
      expect(JSON.parse(JSON.stringify(parts.location.continent).replace(/"time_now":"[^"]*"/, '"time_now":null'))).toEqual(
        JSON.parse(JSON.stringify(decoded.continent).replace(/"time_now":"[^"]*"/, '"time_now":null')),
      );
      expect([parts.network.registered_country, parts.network.asn]).toEqual([decoded.registered_country, decoded.asn]);
    }
    // rows with the same texts share one read-only copy
    const other = recordParts({ ...rows[0]!, ip: "5.6.7.8", ipKey: new Uint8Array([4, 5, 6, 7, 8]) }, startedAt + 5_000);
    expect(other.location).toBe(recordParts(rows[0]!, startedAt).location);
    expect(other.ip).toBe("5.6.7.8");
    expect(Object.isFrozen(other.location.continent!.country!.city)).toBe(true);
    expect(() => {
      (other.network.asn as { number: number }).number = 1;
    }).toThrow(TypeError);
  });
});

describe("record codec on the real engine's output", () => {
  it("stores every status the engine produces compactly (nothing in extra) and exactly, with or without its part tokens", async () => {
    const { createGeoEngine } = await import("../geo/engine/engine.js");
    const { mkdtempSync, rmSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const dataDir = mkdtempSync(join(tmpdir(), "ipatlas-codec-"));
    const engine = await createGeoEngine({ dataDir, publicBaseUrl: () => "http://127.0.0.1:8787", logger: { info() {}, warn() {}, error() {} } as never });
    try {
      const inputs = ["8.8.8.8", "81.2.69.160", "1.1.1.1", "2001:4860:4860::8888", "::ffff:8.8.4.4", "10.0.0.1", "::1", "Not-An-Ip", " 9.9.9.9 "];
      for (let i = 0; i < 200; i++) inputs.push(`${1 + (i % 222)}.${(i * 37) % 256}.${(i * 11) % 256}.${(i * 7) % 254 + 1}`);
      let withTimeNow = 0;
      for (const input of inputs) {
        const startedAt = Date.now() - (input.length % 5) * 1234;
        const result = engine.convert(input, new Date(startedAt));
        // through the engine's part tokens and per-address values, before its Ip object is built:
        // the parts' text comes from the answer's (ip-object-json.ts)
        const viaTokens = encodeRecord({ status: result.status, get data() { return result.data; }, startedAt, parts: result.parts, address: result.address });
        const data = result.data;
        const record = encodeData(data, startedAt);
        expect(viaTokens, input).toStrictEqual(record);
        if (data.continent?.country?.city?.timezone?.time_now) withTimeNow++;
        if (data.ip === data.ip?.toLowerCase()) expect(record.extra, input).toBeNull();
        // prefix search finds keyed rows by key (ip-prefix.ts): their text must be the canonical one
        if (record.ipKey) expect(parseIp(record.ip!)?.ip, input).toBe(record.ip);
        expect(roundTrip(record, startedAt), input).toStrictEqual(data);
      }
      expect(withTimeNow).toBeGreaterThan(100);
      // the same addresses again: every part is known, so no located result's Ip object is read
      let reads = 0;
      for (const input of inputs) {
        const startedAt = Date.now();
        const result = engine.convert(input, new Date(startedAt));
        if (!result.parts) continue;
        const record = encodeRecord({ status: result.status, get data() { return reads++, result.data; }, startedAt, parts: result.parts, address: result.address });
        expect(roundTrip(record, startedAt), input).toStrictEqual(result.data);
      }
      expect(reads).toBe(0);
    } finally {
      await engine.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
