/** The fragment-assembled Ip object text, and its bytes, are exactly JSON.stringify of the object, on both kinds of data. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createGeoEngine } from "./engine.js";
import { locationPartText } from "./ip-object-json.js";
import { LocatedResult } from "./located-result.js";
import type { GeoEngine } from "../types.js";
import { JsonBytes } from "../../json-bytes.js";
import { randomPublicIpv4 } from "../../../test/helpers/random-addresses.js";

const FIXTURES = resolve(import.meta.dirname, "../../../test/fixtures/maxmind");
const quiet = { info() {}, warn() {}, error() {} };
// the same addresses twice, so the second round is served from cached fragments
const ADDRESSES = [
  ...randomPublicIpv4(400),
  "8.8.8.8",
  "2001:4860:4860::8888",
  "::ffff:81.2.69.160",
  "81.2.69.160",
  "2a02:cf40::1",
  "10.0.0.1",
  "not an ip",
  "\"quoted\" \\ text",
];

function expectSameText(engine: GeoEngine): void {
  for (const now of [new Date("2026-11-22T03:04:05.678Z"), new Date("2026-07-01T23:59:59.001Z")]) {
    for (const address of [...ADDRESSES, ...ADDRESSES]) {
      const result = engine.convert(address, now);
      expect(engine.toJson(result)).toBe(JSON.stringify(result.data));
      const out = new JsonBytes(256);
      engine.writeJson(result, out);
      expect(Buffer.concat(out.chunks()).toString("utf8")).toBe(JSON.stringify(result.data));
    }
  }
}

describe("IpObjectJson", () => {
  let dataDir: string;
  let bundled: GeoEngine;
  let maxmind: GeoEngine;
  let base = "http://127.0.0.1:1";
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "ipatlas-json-"));
    bundled = await createGeoEngine({ dataDir, publicBaseUrl: () => base, logger: quiet });
    maxmind = await createGeoEngine({
      cityDb: join(FIXTURES, "GeoIP2-City-Test.mmdb"),
      asnDb: join(FIXTURES, "GeoLite2-ASN-Test.mmdb"),
      dataDir,
      publicBaseUrl: () => base,
      logger: quiet,
    });
  });
  afterAll(async () => {
    await bundled.close();
    await maxmind.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("writes a result whose parts it has written before without building its Ip object", () => {
    const now = new Date();
    const inputs = [...ADDRESSES.slice(0, 50), "8.8.8.8", "2001:4860:4860::8888"];
    for (const input of inputs) bundled.toJson(bundled.convert(input, now));
    const built = vi.spyOn(LocatedResult.prototype, "data", "get");
    try {
      const again = inputs.map((input) => bundled.convert(input, now)).filter((result) => result instanceof LocatedResult);
      expect(again.length).toBeGreaterThan(40);
      const texts = again.map((result) => bundled.toJson(result));
      const out = new JsonBytes();
      for (const result of again) bundled.writeJson(result, out);
      expect(built).not.toHaveBeenCalled();
      expect(Buffer.concat(out.chunks()).toString("utf8")).toBe(texts.join(""));
      expect(texts).toEqual(again.map((result) => JSON.stringify(result.data)));
    } finally {
      built.mockRestore();
    }
  });

  it("equals JSON.stringify on the bundled data, time_now and completion_time included", () => {
    expectSameText(bundled);
  });

  it("equals JSON.stringify on MaxMind files", () => {
    expectSameText(maxmind);
  });

  it("follows a new public base into the flag URLs", () => {
    expectSameText(bundled);
    base = "https://geo.example.com";
    const result = bundled.convert("8.8.8.8", new Date());
    expect(bundled.toJson(result)).toContain("https://geo.example.com/flags/us.svg");
    expectSameText(bundled);
  });
});

describe("locationPartText", () => {
  const timezone = { name: "Europe/London", time_now: "2026-11-30T01:02:03+00:00" };
  const continent = (extra: object) =>
    ({ name: "Europe", code: "EU", geoname_id: 1, ...extra, country: { name: "United Kingdom", code: "GB", city: { name: "London", timezone } } }) as never;
  /** the text with time_now written into the cut, as an answer is made from it */
  const joined = (text: ReturnType<typeof locationPartText>, timeNow: string) => `{${text.head}${JSON.stringify(timeNow)}${text.tail}}`;

  it("cuts the stored text (time_now null) where the time zone's time_now goes", () => {
    const text = locationPartText(false, continent({ note: '"time_now":null' }));
    expect(JSON.parse(text.whole).continent.country.city.timezone.time_now).toBeNull();
    expect(joined(text, timezone.time_now)).toBe(JSON.stringify({ is_eu: false, continent: continent({ note: '"time_now":null' }) }));
  });

  it("finds the time zone's time_now when another member of that name comes first", () => {
    const text = locationPartText(true, continent({ time_now: null }));
    expect(joined(text, timezone.time_now)).toBe(JSON.stringify({ is_eu: true, continent: continent({ time_now: null }) }));
    expect(JSON.parse(text.whole).continent.country.city.timezone.time_now).toBeNull();
    expect(JSON.parse(text.whole).continent.time_now).toBeNull();
  });
});
