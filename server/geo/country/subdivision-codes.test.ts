/**
 * ISO 3166-2 codes for DB-IP's subdivision names: the matching on small made-up lists, the real
 * `iso-3166` list, and spot checks on the bundled data through the engine.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSubdivisionIndex, codeIn, normaliseSubdivisionName, subdivisionCode, type SubdivisionEntry } from "./subdivision-codes.js";
import { createGeoEngine } from "../engine/engine.js";
import type { GeoEngine } from "../types.js";

const lookUp = (entries: SubdivisionEntry[]) => {
  const index = buildSubdivisionIndex(entries);
  return (country: string, name: string) => codeIn(index, country, name);
};

describe("normaliseSubdivisionName", () => {
  it("drops diacritics, apostrophes, punctuation and case", () => {
    expect(normaliseSubdivisionName("Île-de-France")).toBe("ile de france");
    expect(normaliseSubdivisionName("Kharkivs’ka Oblast’")).toBe("kharkivska oblast");
    expect(normaliseSubdivisionName("Raʼs al Khaymah")).toBe(normaliseSubdivisionName("Ra’s al Khaymah"));
    expect(normaliseSubdivisionName("  Abū Z̧aby ")).toBe("abu zaby");
    expect(normaliseSubdivisionName("Provence-Alpes-Côte-d’Azur")).toBe("provence alpes cote dazur");
  });
});

describe("matching a name to a code", () => {
  it("matches across diacritics, punctuation and case, within the country", () => {
    const code = lookUp([
      { code: "FR-IDF", name: "Île-de-France", parent: "FR" },
      { code: "DE-BW", name: "Baden-Württemberg", parent: "DE" },
    ]);
    expect(code("FR", "Ile-de-France")).toBe("IDF");
    expect(code("fr", "ILE DE FRANCE")).toBe("IDF");
    expect(code("DE", "Baden-Wurttemberg")).toBe("BW");
    expect(code("DE", "Ile-de-France")).toBeNull();
    expect(code("FR", "Bavaria")).toBeNull();
  });

  it("gives no code when two codes of one country share the name", () => {
    const code = lookUp([
      { code: "XA-A", name: "Saint-Denis", parent: "XA" },
      { code: "XA-B", name: "Saint Denis", parent: "XA" },
      { code: "XB-C", name: "Saint-Denis", parent: "XB" },
    ]);
    expect(code("XA", "Saint-Denis")).toBeNull();
    expect(code("XB", "Saint Denis")).toBe("C");
  });

  it("matches top-level subdivisions only; the whole name before a part of one", () => {
    const code = lookUp([
      { code: "ES-MD", name: "Madrid, Comunidad de", parent: "ES" },
      { code: "ES-M", name: "Madrid", parent: "ES-MD" },
      { code: "ES-VC", name: "Valenciana, Comunidad", parent: "ES" },
      { code: "ES-V", name: "Valencia", parent: "ES-VC" },
      { code: "BG-22", name: "Sofia (stolitsa)", parent: "BG" },
      { code: "BG-23", name: "Sofia", parent: "BG" },
      { code: "IT-32", name: "Trentino-Alto Adige, Trentino-Südtirol", parent: "IT" },
    ]);
    expect(code("ES", "Madrid")).toBe("MD");
    expect(code("ES", "Comunidad de Madrid")).toBe("MD");
    expect(code("ES", "Valencia")).toBeNull();
    expect(code("ES", "Comunidad Valenciana")).toBe("VC");
    expect(code("BG", "Sofia")).toBe("23");
    expect(code("BG", "Stolitsa")).toBe("22");
    expect(code("IT", "Trentino-Sudtirol")).toBe("32");
  });

  it("finds an ISO name written with a kind word the looked-up name lacks, not the reverse", () => {
    const code = lookUp([
      { code: "CN-BJ", name: "Beijing Shi", parent: "CN" },
      { code: "KR-11", name: "Seoul-teukbyeolsi", parent: "KR" },
      { code: "RU-AL", name: "Altay, Respublika", parent: "RU" },
      { code: "RU-ALT", name: "Altayskiy kray", parent: "RU" },
      { code: "SE-AB", name: "Stockholms län", parent: "SE" },
      { code: "SE-M", name: "Skåne län", parent: "SE" },
    ]);
    expect(code("CN", "Beijing")).toBe("BJ");
    expect(code("KR", "Seoul")).toBe("11");
    expect(code("RU", "Altay")).toBe("AL");
    expect(code("RU", "Altayskiy")).toBe("ALT");
    // "kray" is not stripped from the name looked up: "Altay" alone is the republic
    expect(code("RU", "Altay Kray")).toBeNull();
    expect(code("SE", "Stockholm")).toBe("AB");
    expect(code("SE", "Skane")).toBe("M");
  });

  it("lets an ambiguous whole name stay without a code rather than fall back", () => {
    const code = lookUp([
      { code: "XA-A", name: "Foo", parent: "XA" },
      { code: "XA-B", name: "Foo", parent: "XA" },
      { code: "XA-C", name: "Foo Sheng", parent: "XA" },
      { code: "XA-D", name: "Bar Sheng", parent: "XA" },
      { code: "XA-E", name: "Bar Shi", parent: "XA" },
    ]);
    expect(code("XA", "Foo")).toBeNull();
    expect(code("XA", "Foo Sheng")).toBe("C");
    expect(code("XA", "Bar")).toBeNull();
  });
});

describe("subdivisionCode on the iso-3166 list", () => {
  it.each([
    ["GB", "England", "ENG"],
    ["GB", "Scotland", "SCT"],
    ["US", "California", "CA"],
    ["US", "District of Columbia", "DC"],
    ["CA", "Quebec", "QC"],
    ["FR", "Ile-de-France", "IDF"],
    ["ES", "Madrid", "MD"],
    ["UA", "Kharkivs’ka Oblast’", "63"],
    ["AE", "Raʼs al Khaymah", "RK"],
    ["CN", "Beijing", "BJ"],
    ["SE", "Vastra Gotaland", "O"],
    ["JP", "Tokyo", "13"],
  ])("%s %s -> %s", (country, name, code) => {
    expect(subdivisionCode(country, name)).toBe(code);
  });

  it.each([
    ["DE", "Bavaria"], // English name; ISO writes Bayern
    ["ES", "Valencia"], // the community ES-VC; only the province ES-V is named so
    ["MX", "Mexico City"],
    ["GB", "Bavaria"],
    ["XX", "England"],
  ])("%s %s -> null", (country, name) => {
    expect(subdivisionCode(country, name)).toBeNull();
  });
});

describe("subdivision codes of the bundled data", () => {
  const NOW = new Date("2026-11-22T03:04:05.678Z");
  let engine: GeoEngine;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "ipatlas-subdivision-"));
    engine = await createGeoEngine({ dataDir, publicBaseUrl: () => "http://127.0.0.1:4321", logger: { info() {}, warn() {}, error() {} } });
  });
  afterAll(async () => {
    await engine.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const located = (ip: string) => {
    const { data } = engine.convert(ip, NOW);
    return { country: data.continent?.country?.code, subdivision: data.continent?.country?.subdivision };
  };

  // The names are DB-IP's (as of the bundled build): a data update that moves an address fails here.
  it.each([
    ["81.2.69.160", "GB", "England", "ENG"],
    ["8.8.8.8", "US", "California", "CA"],
    ["2.57.28.1", "CA", "Quebec", "QC"],
    ["1.178.90.1", "FR", "Ile-de-France", "IDF"], // ISO: Île-de-France
    ["2.57.39.1", "UA", "Kharkivs’ka Oblast’", "63"], // ISO: Kharkivska oblast
    ["1.2.2.1", "CN", "Beijing", "BJ"], // ISO: Beijing Shi
    ["1.178.224.1", "ES", "Madrid", "MD"], // the community, not the province ES-M
    ["1.178.247.1", "ES", "Valencia", null], // the community ES-VC, which ISO names Valenciana
    ["2.16.36.1", "DE", "Bavaria", null], // ISO: Bayern
  ])("%s: %s / %s -> %s", (ip, country, name, code) => {
    expect(located(ip)).toEqual({ country, subdivision: { name, code } });
  });

  it("hands out one location per record, its code with it", () => {
    const first = engine.convert("81.2.69.160", NOW);
    const second = engine.convert("81.2.69.161", NOW);
    expect(second.parts!.location).toBe(first.parts!.location);
    expect(second.data.continent!.country!.subdivision).toEqual({ name: "England", code: "ENG" });
  });
});
