/**
 * The promise behind ConvertParts, checked on the bundled data: results that share a token share
 * the part's content (time_now aside), so storage may serialise a part once per token.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGeoEngine } from "./engine.js";
import { randomPublicIpv4 } from "../../../test/helpers/random-addresses.js";
import type { ConvertResult, GeoEngine } from "../types.js";

const NOW = new Date("2026-11-22T03:04:05.678Z");

const locationText = ({ data }: ConvertResult) => {
  const copy = structuredClone({ is_eu: data.is_eu, continent: data.continent });
  const timezone = copy.continent?.country?.city?.timezone;
  if (timezone) timezone.time_now = null;
  return JSON.stringify(copy);
};
const networkText = ({ data }: ConvertResult) => JSON.stringify({ registered_country: data.registered_country, asn: data.asn });

describe("part tokens", () => {
  let engine: GeoEngine;
  let dataDir: string;
  let base = "http://127.0.0.1:4321";
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "ipatlas-parts-"));
    engine = await createGeoEngine({ dataDir, publicBaseUrl: () => base, logger: { info() {}, warn() {}, error() {} } });
  });
  afterAll(async () => {
    await engine.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("gives equal parts wherever it gives the same token, and shares tokens between neighbours", () => {
    const seen = { location: new Map<object, string>(), network: new Map<object, string>() };
    let shared = 0;
    // neighbours in one /24 share their records, so tokens must repeat as well as agree
    const addresses = randomPublicIpv4(3000).flatMap((ip) => [ip, ip.replace(/\.\d+$/, ".7")]);
    for (const ip of addresses) {
      const result = engine.convert(ip, NOW);
      expect(result.status).toBe("success");
      for (const [part, text] of [["location", locationText(result)], ["network", networkText(result)]] as const) {
        const token = result.parts![part];
        const before = seen[part].get(token);
        if (before === undefined) seen[part].set(token, text);
        else {
          shared++;
          expect(text).toBe(before);
        }
      }
    }
    expect(shared).toBeGreaterThan(addresses.length);
  });

  it("hands out new location tokens when the public base (and so flag.img) changes", () => {
    const before = engine.convert("81.2.69.160", NOW);
    base = "https://geo.example.com";
    const after = engine.convert("81.2.69.160", NOW);
    expect(after.data.continent?.country?.flag?.img).toBe("https://geo.example.com/flags/gb.svg");
    expect(after.parts!.location).not.toBe(before.parts!.location);
    expect(after.parts!.network).toBe(before.parts!.network);
  });

  it("gives none for addresses no database knows", () => {
    expect(engine.convert("10.1.2.3", NOW).parts).toBeUndefined();
    expect(engine.convert("not an address", NOW).parts).toBeUndefined();
  });
});
