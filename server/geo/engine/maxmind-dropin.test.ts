/**
 * IPATLAS_CITY_DB / IPATLAS_ASN_DB with MaxMind's test databases: every network of the JSON they
 * were built from, every field of the Ip object, compared against that JSON (and world-countries
 * for the facts MaxMind does not carry).
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import countries from "world-countries";
import { createGeoEngine } from "./engine.js";
import type { GeoEngine } from "../types.js";
import { parseCidr } from "../../../lib/ip/index.js";
import { ipObjectSchema, type IpObject } from "../../../lib/schemas/ip-object.js";

const FIXTURES = resolve(import.meta.dirname, "../../../test/fixtures/maxmind");
const BASE = "http://127.0.0.1:9999";
const NOW = new Date("2026-11-22T03:04:05.678Z");

type Names = { names?: Record<string, string>; geoname_id?: number; iso_code?: string; code?: string };
interface CityRecord {
  continent?: Names;
  country?: Names;
  registered_country?: Names;
  subdivisions?: Names[];
  city?: Names;
  location?: { latitude?: number; longitude?: number; accuracy_radius?: number; metro_code?: number; time_zone?: string };
  postal?: { code?: string };
}
interface AsnRecord {
  autonomous_system_number?: number;
  autonomous_system_organization?: string;
}

const load = <T>(file: string) =>
  (JSON.parse(readFileSync(join(FIXTURES, file), "utf8")) as Array<Record<string, T>>).map((entry) => Object.entries(entry)[0]!);
const cityNetworks = load<CityRecord>("GeoIP2-City-Test.json");
const asnNetworks = load<AsnRecord>("GeoLite2-ASN-Test.json");

/** The address to ask for a network: its first address; `::a.b.c.d/n` is where MaxMind keeps IPv4. */
function probeAddress(network: string): string {
  const address = network.split("/")[0]!;
  return address.startsWith("::") && address.includes(".") ? address.slice(2) : address;
}

/** The most specific ASN network holding the address (independent of the engine's lookup). */
function expectedAsn(address: string): IpObject["asn"] {
  const probe = parseCidr(`${address}/${address.includes(":") ? 128 : 32}`)!;
  let best: { bits: number; record: AsnRecord } | null = null;
  for (const [network, record] of asnNetworks) {
    const range = parseCidr(network)!;
    if (range.version !== probe.version) continue;
    const inside = Buffer.compare(range.first, probe.first) <= 0 && Buffer.compare(probe.first, range.last) <= 0;
    if (inside && (!best || range.prefixLength > best.bits)) best = { bits: range.prefixLength, record };
  }
  if (!best) return null;
  return { number: best.record.autonomous_system_number ?? null, name: best.record.autonomous_system_organization ?? null };
}

const EU_27 = "AT BE BG HR CY CZ DK EE FI FR DE GR HU IE IT LV LT LU MT NL PL PT RO SK SI ES SE".split(" ");

function expectedIpObject(address: string, record: CityRecord): Omit<IpObject, "completion_time"> {
  const code = record.country?.iso_code ?? null;
  const facts = code ? countries.find((country) => country.cca2 === code) : undefined;
  const location = record.location;
  const subdivision = record.subdivisions?.[0];
  const timeZone = location?.time_zone ?? null;
  const city = {
    name: record.city?.names?.en ?? null,
    geoname_id: record.city?.geoname_id ?? null,
    latitude: location?.latitude ?? null,
    longitude: location?.longitude ?? null,
    accuracy_radius: location?.accuracy_radius ?? null,
    metro_code: location?.metro_code ?? null,
    postal_code: record.postal?.code ?? null,
    timezone: timeZone ? { name: timeZone, time_now: expect.any(String) } : null,
  };
  const cityKnown = Object.values(city).some((value) => value !== null);
  const country = code
    ? {
        name: record.country!.names?.en ?? null,
        code,
        geoname_id: record.country!.geoname_id ?? null,
        phone_code: expect.stringMatching(/^\+\d+$/),
        capital: facts?.capital[0] ?? null,
        tld: facts?.tld[0] ?? null,
        subdivision: subdivision ? { name: subdivision.names?.en ?? null, code: subdivision.iso_code ?? null } : null,
        city: cityKnown ? city : null,
        flag: {
          img: `${BASE}/flags/${code.toLowerCase()}.svg`,
          emoji: String.fromCodePoint(...[...code].map((letter) => 0x1f1e6 + letter.charCodeAt(0) - 65)),
          emoji_unicode: expect.stringMatching(/^U\+1F1[0-9A-F]{2} U\+1F1[0-9A-F]{2}$/),
        },
        currency: facts ? expect.objectContaining({ code: Object.keys(facts.currencies)[0] }) : null,
      }
    : null;
  const continent =
    record.continent || country
      ? {
          name: record.continent?.names?.en ?? null,
          code: record.continent?.code ?? null,
          geoname_id: record.continent?.geoname_id ?? null,
          country,
        }
      : null;
  const registered = record.registered_country;
  return {
    ip: address,
    type: address.includes(":") ? "ipv6" : "ipv4",
    is_eu: code ? EU_27.includes(code) : null,
    continent,
    registered_country: registered
      ? { name: registered.names?.en ?? null, code: registered.iso_code ?? null, geoname_id: registered.geoname_id ?? null }
      : null,
    asn: expectedAsn(address),
  };
}

describe("MaxMind City and ASN files as a drop-in", () => {
  let engine: GeoEngine;
  beforeAll(async () => {
    engine = await createGeoEngine({
      cityDb: join(FIXTURES, "GeoIP2-City-Test.mmdb"),
      asnDb: join(FIXTURES, "GeoLite2-ASN-Test.mmdb"),
      dataDir: "/nonexistent-not-needed",
      publicBaseUrl: () => BASE,
      logger: { info() {}, warn() {}, error() {} },
    });
  });
  afterAll(() => engine.close());

  it(`fills every field for all ${cityNetworks.length} networks of GeoIP2-City-Test.json`, () => {
    expect(cityNetworks.length).toBeGreaterThan(200);
    for (const [network, record] of cityNetworks) {
      const address = probeAddress(network);
      const result = engine.convert(address, NOW);
      expect(result.status, network).toBe("success");
      expect(ipObjectSchema.parse(result.data)).toEqual(result.data);
      const { completion_time, ...rest } = result.data;
      expect(rest, network).toEqual(expectedIpObject(address, record));
      expect(completion_time!.miliseconds).toBeGreaterThanOrEqual(0);
      const timezone = result.data.continent?.country?.city?.timezone;
      if (timezone) {
        // The local time names the same instant as `now`, to the whole second.
        expect(timezone.time_now).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/);
        expect(Date.parse(timezone.time_now!)).toBe(Math.floor(NOW.getTime() / 1000) * 1000);
      }
    }
  });

  it("fills metro code, postal code, accuracy radius and subdivision code where MaxMind has them", () => {
    const data = engine.convert("216.160.83.56", NOW).data;
    expect(data.continent?.country).toMatchObject({
      code: "US",
      subdivision: { code: "WA", name: "Washington" },
      city: { name: "Milton", metro_code: 819, postal_code: "98354", accuracy_radius: expect.any(Number) },
    });
  });

  it("gives one network token per registered country and ASN, whichever record they came from", () => {
    // Part tokens follow objects: equal parts must come as the same objects, though each city
    // record carries its own registered country and an ASN file's records are decoded again
    const tokens = new Map<string, Set<object>>();
    const records = new Map<string, Set<string>>();
    for (const [network, record] of cityNetworks) {
      for (const address of [probeAddress(network), probeAddress(network)]) {
        const result = engine.convert(address, NOW);
        expect(result.status).toBe("success");
        // the whole value, every language's name included
        const value = JSON.stringify({ registered: record.registered_country ?? null, asn: expectedAsn(address) });
        if (!tokens.has(value)) tokens.set(value, new Set()), records.set(value, new Set());
        tokens.get(value)!.add(result.parts!.network);
        records.get(value)!.add(network);
      }
    }
    for (const [value, seen] of tokens) expect(seen.size, value).toBe(1);
    // there were equal parts from different records, and ASNs, to compare
    expect([...records.values()].filter((networks) => networks.size > 1).length).toBeGreaterThan(5);
    expect([...tokens.keys()].filter((value) => !value.endsWith('"asn":null}')).length).toBeGreaterThan(2);
  });

  it("reports the files in databases() with their build dates", () => {
    const databases = engine.databases();
    expect(databases.map((db) => db.name).sort()).toEqual(["asn", "city", "registered-country"]);
    for (const db of databases) {
      expect(db.kind).toBe("maxmind");
      expect(db.buildDate).toBe("2026-02-04T22:49:29.000Z");
    }
  });
});
