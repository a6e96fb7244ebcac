/** Replacing a configured .mmdb file: picked up without a restart, bad files refused, old data kept. */
import { copyFileSync, mkdtempSync, renameSync, rmSync, writeFileSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGeoEngine } from "./engine.js";
import type { GeoEngine } from "../types.js";
import { UnavailableSource } from "../sources/lookups.js";

const FIXTURES = resolve(import.meta.dirname, "../../../test/fixtures/maxmind");
const NOW = new Date("2026-11-22T03:04:05Z");

const log: string[] = [];

async function until(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; log: ${log.join(" | ")}`);
    await new Promise((resolveWait) => setTimeout(resolveWait, 25));
  }
}

describe("hot reload of MaxMind files", () => {
  let dir: string;
  let cityPath: string;
  let engine: GeoEngine | null = null;
  const errors: string[] = [];
  const infos: string[] = [];
  const logger = {
    info: (line: string) => log.push(line) && infos.push(line),
    warn: (line: string) => log.push(line) && infos.push(line),
    error: (line: string) => log.push(line) && errors.push(line),
  };

  /** Replaces the configured file the way deploy tools do: write beside it, then rename over it. */
  const replaceCity = (fixture: string) => {
    const temporary = join(dir, "incoming.mmdb");
    copyFileSync(join(FIXTURES, fixture), temporary);
    renameSync(temporary, cityPath);
  };
  const start = async () => {
    engine = await createGeoEngine({
      cityDb: cityPath,
      asnDb: join(FIXTURES, "GeoLite2-ASN-Test.mmdb"),
      dataDir: dir,
      publicBaseUrl: () => "http://localhost",
      logger,
      reloadIntervalMs: 20,
    });
    return engine;
  };
  const countryOf = (ip: string) => engine!.convert(ip, NOW).data.continent?.country?.code ?? null;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "ipatlas-reload-"));
    cityPath = join(dir, "city.mmdb");
    errors.length = 0;
    infos.length = 0;
    log.length = 0;
  });
  afterEach(async () => {
    await engine?.close();
    engine = null;
    rmSync(dir, { recursive: true, force: true });
  });

  it("swaps in a replaced file without a restart", async () => {
    replaceCity("GeoIP2-City-Test.mmdb");
    await start();
    expect(countryOf("214.0.0.0")).toBe("SG"); // only the GeoIP2 test file knows this network
    replaceCity("GeoLite2-City-Test.mmdb");
    await until(() => countryOf("214.0.0.0") === null, "the GeoLite2 file to serve");
    expect(countryOf("81.2.69.160")).toBe("GB");
    expect(infos.some((line) => line.includes("reloaded city database"))).toBe(true);
    expect(errors).toEqual([]);
  });

  it.each([
    ["GeoIP2-City-Test-Broken-Double-Format.mmdb", /double of \d+ bytes/],
    ["GeoIP2-City-Test-Invalid-Node-Count.mmdb", /invalid node count/],
    ["GeoLite2-ASN-Test.mmdb", /not a city database/],
  ])("refuses %s, logs why and keeps serving the previous data", async (fixture, reason) => {
    replaceCity("GeoIP2-City-Test.mmdb");
    await start();
    replaceCity(fixture);
    await until(() => errors.length > 0, "the refusal to be logged");
    expect(errors[0]).toMatch(reason);
    expect(errors[0]).toContain("still serving the previous data");
    expect(countryOf("214.0.0.0")).toBe("SG");
    expect(engine!.convert("2001:218::1", NOW).data.continent?.country?.city?.latitude).toBe(35.68536);
  });

  it("refuses a file overwritten with garbage in place, then takes the good file written after it", async () => {
    replaceCity("GeoIP2-City-Test.mmdb");
    await start();
    writeFileSync(cityPath, Buffer.from("not a maxmind database"));
    await until(() => errors.length > 0, "the refusal to be logged");
    expect(countryOf("81.2.69.160")).toBe("GB");
    writeFileSync(cityPath, readFileSync(join(FIXTURES, "GeoLite2-City-Test.mmdb")));
    await until(() => countryOf("214.0.0.0") === null && countryOf("81.2.69.160") === "GB", "the good file to serve");
  });

  it("fails lookups while a configured file is missing, and recovers when it appears", async () => {
    await start();
    expect(errors[0]).toMatch(/refused city database .*city\.mmdb/);
    const failed = engine!.convert("81.2.69.160", NOW);
    expect(failed.status).toBe("failed");
    expect(failed.data).toEqual({ ip: "81.2.69.160", type: "ipv4", is_eu: null, continent: null, registered_country: null, asn: null, completion_time: null });
    expect(engine!.convert("10.0.0.1", NOW).status).toBe("success"); // no database needed
    expect(engine!.convert("nope", NOW).status).toBe("invalid-ip-address");
    expect(engine!.databases().find((db) => db.name === "city")?.buildDate).toBeNull();

    replaceCity("GeoIP2-City-Test.mmdb");
    await until(() => engine!.convert("81.2.69.160", NOW).status === "success", "the file to load");
    expect(countryOf("81.2.69.160")).toBe("GB");
    expect(engine!.databases().find((db) => db.name === "city")?.buildDate).toBe("2026-02-04T22:49:29.000Z");
  });
});

describe("UnavailableSource", () => {
  it("fails every lookup and reports its databases without a build date", () => {
    const source = new UnavailableSource(["asn", "registered-country"], "ENOENT");
    expect(() => source.lookup()).toThrow(/asn and registered-country data unavailable: ENOENT/);
    expect(() => source.registeredCountry()).toThrow(/unavailable/);
    expect(source.databases()).toEqual([
      { name: "asn", kind: "bundled", source: "unavailable", buildDate: null },
      { name: "registered-country", kind: "bundled", source: "unavailable", buildDate: null },
    ]);
  });
});
