/** The default engine on the bundled data: spot checks on well-known addresses, and the edges. */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGeoEngine } from "./engine.js";
import type { GeoEngine } from "../types.js";
import { ipObjectSchema } from "../../../lib/schemas/ip-object.js";
import { StaleWarning, withFreshness } from "../update/freshness.js";
import { updateData } from "../update/updater.js";
import { loadUpdateSettings } from "../update/settings.js";
import { file, gzipped, startSourceServer } from "../../../test/helpers/data-source-server.js";

const NOW = new Date("2026-11-22T03:04:05.678Z");
const BASE = "http://127.0.0.1:4321";

describe("bundled data", () => {
  let engine: GeoEngine;
  let dataDir: string;
  const logged: string[] = [];
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "ipatlas-geo-"));
    const log = (line: string) => logged.push(line);
    engine = await createGeoEngine({ dataDir, publicBaseUrl: () => BASE, logger: { info: log, warn: log, error: log } });
  });
  afterAll(async () => {
    await engine.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const convert = (ip: string) => {
    const result = engine.convert(ip, NOW);
    expect(ipObjectSchema.parse(result.data)).toEqual(result.data);
    return result;
  };

  it("caches the CSV data as one binary index in the data dir", () => {
    expect(readdirSync(join(dataDir, "geo"))).toEqual([expect.stringMatching(/^bundled-geo-\d+-.+\.bin$/)]);
  });

  it("locates 8.8.8.8 in the US, AS15169 Google", () => {
    const { status, data } = convert("8.8.8.8");
    expect(status).toBe("success");
    expect(data).toMatchObject({
      ip: "8.8.8.8",
      type: "ipv4",
      is_eu: false,
      continent: { code: "NA", name: "North America", geoname_id: 6255149, country: { code: "US", geoname_id: 6252001, phone_code: "+1" } },
      registered_country: { code: "US", name: "United States", geoname_id: 6252001 },
      asn: { number: 15169, name: "Google LLC" },
    });
  });

  it("finds 1.1.1.1 in AS13335", () => {
    expect(convert("1.1.1.1").data.asn).toEqual({ number: 13335, name: "Cloudflare, Inc." });
  });

  it("gives 81.2.69.160 the United Kingdom's facts, outside the EU", () => {
    const { data } = convert("81.2.69.160");
    expect(data.is_eu).toBe(false);
    expect(data.continent).toMatchObject({ code: "EU", name: "Europe", geoname_id: 6255148 });
    const country = data.continent!.country!;
    expect(country).toMatchObject({
      name: "United Kingdom",
      code: "GB",
      geoname_id: 2635167,
      phone_code: "+44",
      capital: "London",
      tld: ".uk",
      flag: { img: `${BASE}/flags/gb.svg`, emoji: "🇬🇧", emoji_unicode: "U+1F1EC U+1F1E7" },
      currency: { name: "British Pound", code: "GBP", symbol: "£" },
    });
    expect(country.subdivision?.name).toBeTruthy();
    expect(country.city).toMatchObject({ latitude: expect.any(Number), longitude: expect.any(Number) });
    // the decimals the data was built from, not their 32-bit float (51.51430130004883)
    expect(String(country.city!.latitude).replace(/^-?\d+\./, "").length).toBeLessThanOrEqual(7);
    expect(String(country.city!.longitude).replace(/^-?\d+\./, "").length).toBeLessThanOrEqual(7);
    expect(country.city!.timezone).toEqual({ name: "Europe/London", time_now: "2026-11-22T03:04:05+00:00" });
  });

  it("derives a time zone from the coordinates, with the local time of `now`", () => {
    const { data } = convert("8.8.8.8");
    const timezone = data.continent!.country!.city!.timezone!;
    expect(timezone.name).toMatch(/^America\//);
    expect(Date.parse(timezone.time_now!)).toBe(Date.parse("2026-11-22T03:04:05Z"));
  });

  it("marks an EU member", () => {
    const { data } = convert("2a00:1450:4001::1");
    expect(data.type).toBe("ipv6");
    expect(data.is_eu).toBe(data.continent?.country?.code ? ["DE", "IE", "NL", "BE", "FR"].includes(data.continent.country.code) : null);
    expect(data.asn?.number).toBe(15169);
  });

  it("locates an IPv4-mapped IPv6 address by its IPv4, keeping type ipv6", () => {
    const mapped = convert("::ffff:8.8.8.8").data;
    const plain = convert("8.8.8.8").data;
    expect(mapped.ip).toBe("::ffff:8.8.8.8");
    expect(mapped.type).toBe("ipv6");
    expect(mapped.continent).toEqual(plain.continent);
    expect(mapped.asn).toEqual(plain.asn);
  });

  it.each(["10.0.0.1", "192.168.1.1", "127.0.0.1", "100.64.0.1", "169.254.0.1", "192.0.2.1", "224.0.0.1", "::1", "fe80::1", "fd12::1", "2001:db8::1", "::ffff:10.0.0.1"])(
    "answers %s without a location",
    (ip) => {
      const { status, data } = convert(ip);
      expect(status).toBe("success");
      expect(data).toMatchObject({ type: expect.any(String), is_eu: null, continent: null, registered_country: null, asn: null });
      expect(data.completion_time?.miliseconds).toBeGreaterThanOrEqual(0);
    },
  );

  it("canonicalises the address text", () => {
    expect(convert("  2A00:1450:4001:0:0:0:0:1 ").data.ip).toBe("2a00:1450:4001::1");
  });

  it("returns the input, cut to 100 characters, for an invalid address", () => {
    const long = "x".repeat(250);
    const result = convert(long);
    expect(result.status).toBe("invalid-ip-address");
    expect(result.data).toEqual({ ip: "x".repeat(100), type: null, is_eu: null, continent: null, registered_country: null, asn: null, completion_time: null });
    expect(convert("010.0.0.1").status).toBe("invalid-ip-address");
    expect(convert("8.8.8.8:53").data.ip).toBe("8.8.8.8:53");
  });

  it("hands out fresh objects: changing one result leaves the next one alone", () => {
    const first = convert("81.2.69.160").data;
    first.continent!.country!.subdivision!.name = "changed";
    first.continent!.country!.city!.name = "changed";
    first.asn!.name = "changed";
    first.registered_country!.name = "changed";
    const second = convert("81.2.69.160").data;
    expect(second.continent!.country!.subdivision!.name).not.toBe("changed");
    expect(second.continent!.country!.city!.name).not.toBe("changed");
    expect(second.asn!.name).not.toBe("changed");
    expect(second.registered_country!.name).toBe("United Kingdom");
  });

  it("measures its own completion time", () => {
    const { completion_time } = convert("8.8.4.4").data;
    expect(completion_time!.miliseconds).toBeGreaterThan(0);
    expect(completion_time!.seconds).toBeCloseTo(completion_time!.miliseconds! / 1000, 6);
  });

  it("lists the bundled databases with their build dates", () => {
    const databases = engine.databases();
    expect(databases.map((db) => db.name)).toEqual(["city", "asn", "registered-country"]);
    for (const db of databases) {
      expect(db.kind).toBe("bundled");
      expect(db.source).toMatch(/^@ip-location-db\/[a-z-]+@\d/);
      expect(Number.isNaN(Date.parse(db.buildDate!))).toBe(false);
    }
  });

  it("reuses the cached index on the next start", async () => {
    const lines: string[] = [];
    const log = (line: string) => lines.push(line);
    const second = await createGeoEngine({ dataDir, publicBaseUrl: () => BASE, logger: { info: log, warn: log, error: log } });
    expect(second.convert("1.1.1.1", NOW).data.asn?.number).toBe(13335);
    expect(lines.filter((line) => line.includes("built"))).toEqual([]);
    expect(logged.filter((line) => line.includes("built"))).toHaveLength(1);
    await second.close();
  });

  // The data ages whatever the code does: rather than fail on a calendar date, the server reports
  // stale data (and warns daily), and the updater replaces it.
  it("reports the bundled data stale past the limit, warns once a day, and the updater replaces it", async () => {
    const built = Date.parse(engine.databases()[0]!.buildDate!);
    const day = 86_400_000;
    expect(withFreshness(engine.databases(), new Date(built + 10 * day), 45)[0]).toMatchObject({ ageDays: 10, stale: false });
    expect(withFreshness(engine.databases(), new Date(built + 46 * day), 45)[0]).toMatchObject({ ageDays: 46, stale: true });
    expect(withFreshness(engine.databases(), new Date(built + 46 * day), 60)[0]).toMatchObject({ stale: false });

    let now = new Date(built + 46 * day);
    const warnings: string[] = [];
    const warning = new StaleWarning({ databases: () => engine.databases(), maxAgeDays: 45, log: { info() {}, error() {}, warn: (l) => warnings.push(l) }, now: () => now });
    expect(warning.check()).toBe(true);
    now = new Date(now.getTime() + 23 * 3600_000);
    expect(warning.check()).toBe(false);
    now = new Date(now.getTime() + 2 * 3600_000);
    expect(warning.check()).toBe(true);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/^geo: stale data, older than 45 days: city \(@ip-location-db\/dbip-city-mmdb@[^,]+, built \d{4}-\d\d-\d\d, 46 days old\)/);

    // a month's DB-IP file from a local stand-in for download.db-ip.com
    const source = await startSourceServer();
    try {
      source.routes.set("/dbip-city-lite-2026-02.mmdb.gz", file(gzipped("GeoIP2-City-Test.mmdb")));
      source.routes.set("/dbip-asn-lite-2026-02.mmdb.gz", file(gzipped("GeoLite2-ASN-Test.mmdb")));
      const updateNow = new Date("2026-02-20T00:00:00Z");
      const report = await updateData({
        dataDir,
        cityDb: null,
        asnDb: null,
        settings: loadUpdateSettings({ IPATLAS_UPDATE_PROBES: "81.2.69.160=GB,89.160.20.112=SE,1.128.0.0=AS1221,12.81.92.0=AS7018" }),
        now: updateNow,
        origins: { dbip: source.url },
        log: { info() {}, warn() {}, error() {} },
      });
      expect(report.databases.map((db) => db.status)).toEqual(["updated", "updated"]);
      const deadline = Date.now() + 10_000;
      while (engine.databases()[0]!.kind === "bundled" && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const city = withFreshness(engine.databases(), updateNow, 45)[0]!;
      expect(city).toMatchObject({ name: "city", kind: "maxmind", buildDate: "2026-02-04T22:49:29.000Z", ageDays: 15, stale: false });
      now = updateNow;
      expect(warning.check()).toBe(false);
    } finally {
      await source.close();
      rmSync(join(dataDir, "geo", "downloaded"), { recursive: true, force: true });
    }
  });
});
