/** The dashboard's conversion views on the real SQLite storage. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bareIpObject } from "../../lib/schemas/ip-object.js";
import { makeDataDir } from "../../test/helpers/server.js";
import { createStorage } from "../storage/index.js";
import { sampleConversion } from "../../test/helpers/sample-conversions.js";
import type { Storage } from "../storage/types.js";
import { conversionMap, conversionPage } from "./conversion-views.js";
import { CSV_COLUMNS, csvRow, exportStream } from "./conversion-export.js";

let storage: Storage;
let projectId: string;

beforeAll(async () => {
  storage = await createStorage({ dataDir: makeDataDir() });
  projectId = (await storage.createProject({ name: "views", plan: "scale" })).id;
  // variant 0 is London, 5 is Sydney (test/helpers/sample-conversions.ts); every fourth is invalid
  const conversions = Array.from({ length: 1100 }, (_, i) => {
    if (i % 4 === 3) {
      const startedAt = Date.now();
      return { uniqueId: crypto.randomUUID(), status: "invalid-ip-address" as const, data: bareIpObject(`junk-${i}`, null), startedAt, completedAt: startedAt };
    }
    return sampleConversion(`10.1.${i >> 8}.${i & 255}`, i % 2 === 0 ? 0 : 5);
  });
  await storage.commitConversions({ projectId, period: "2026-11", limit: null, conversions });
});
afterAll(async () => {
  await storage?.close();
});

describe("conversionPage", () => {
  it("pages without a status filter in one storage query", async () => {
    const page = await conversionPage(storage, { projectId, offset: 1090, limit: 20 });
    expect(page).toMatchObject({ totalCount: 1100, hasMore: false });
    expect(page.conversions).toHaveLength(10);
  });

  it("filters by status across chunk edges, counting every match", async () => {
    const invalid = await conversionPage(storage, { projectId, offset: 270, limit: 50, status: "invalid-ip-address" });
    expect(invalid).toMatchObject({ totalCount: 275, hasMore: false });
    expect(invalid.conversions.map((c) => c.status)).toEqual(Array(5).fill("invalid-ip-address"));
    const success = await conversionPage(storage, { projectId, offset: 480, limit: 50, status: "success" });
    expect(success).toMatchObject({ totalCount: 825, hasMore: true });
    expect(success.conversions).toHaveLength(50);
    expect(await conversionPage(storage, { projectId, offset: 0, limit: 10, status: "failed" })).toEqual({ conversions: [], totalCount: 0, hasMore: false });
  });

  it("filters by country and by AS number", async () => {
    // even rows are London (variant 0, AS13335), rows 1 mod 4 Sydney (variant 5, AS13340)
    expect((await conversionPage(storage, { projectId, offset: 0, limit: 5, country: "GB" })).totalCount).toBe(550);
    expect((await conversionPage(storage, { projectId, offset: 0, limit: 5, country: "AU" })).totalCount).toBe(275);
    const sydney = await conversionPage(storage, { projectId, offset: 0, limit: 5, asn: 13340 });
    expect(sydney.totalCount).toBe(275);
    expect(sydney.conversions.every((c) => (c.data as { asn: { number: number } }).asn.number === 13340)).toBe(true);
    expect((await conversionPage(storage, { projectId, offset: 0, limit: 5, country: "GB", asn: 13340 })).totalCount).toBe(0);
  });
});

describe("conversionMap", () => {
  it("counts the latest conversions by country, with ISO numeric codes, and merges close points", async () => {
    const map = await conversionMap(storage, projectId, 1000);
    expect(map.sampled).toBe(1000);
    const total = map.countries.reduce((sum, c) => sum + c.count, 0);
    expect(total).toBe(750);
    expect(map.countries.map((c) => [c.code, c.numeric, c.name])).toEqual(
      expect.arrayContaining([["GB", "826", "United Kingdom"], ["AU", "036", "Australia"]]),
    );
    // 40 latitude variants per city in the sample data, ~0.01° apart: rounded to 0.1° they merge
    expect(map.points.length).toBeLessThanOrEqual(10);
    expect(map.points.reduce((sum, p) => sum + p.count, 0)).toBe(750);
    expect(map.points[0]!.count).toBeGreaterThanOrEqual(map.points.at(-1)!.count);
    expect(map.points[0]!.label).toMatch(/^(London, United Kingdom|Sydney, Australia)$/);
  });

  it("follows the filter and counts conversions per day over the last 30 days", async () => {
    const map = await conversionMap(storage, projectId, 1000, { country: "AU" });
    expect(map.countries.map((c) => c.code)).toEqual(["AU"]);
    expect(map.sampled).toBe(275);
    expect(map.days).toHaveLength(30);
    expect(map.days.at(-1)).toEqual({ day: new Date().toISOString().slice(0, 10), count: 275 });
    expect(map.days.slice(0, -1).every((d) => d.count === 0)).toBe(true);
  });
});

describe("exportStream", () => {
  it("streams the filtered rows as CSV with a header, or as NDJSON", async () => {
    const csv = await new Response(exportStream(storage, projectId, { country: "AU" }, "csv")).text();
    const lines = csv.trimEnd().split("\r\n");
    expect(lines[0]).toBe(CSV_COLUMNS.join(","));
    expect(lines).toHaveLength(276);
    expect(lines[1]).toMatch(/,success,10\.1\.\d+\.\d+,AU,/);
    const ndjson = await new Response(exportStream(storage, projectId, { status: "invalid-ip-address" }, "ndjson")).text();
    const rows = ndjson.trimEnd().split("\n").map((line) => JSON.parse(line));
    expect(rows).toHaveLength(275);
    expect(rows[0]).toMatchObject({ status: "invalid-ip-address", uniqueId: expect.any(String) });
  });

  it("writes each stored row as its decoded Ip object has it: NDJSON as the API's list, CSV from the same fields", async () => {
    const { conversions } = await storage.listConversions({ projectId, offset: 0, limit: 1100 });
    const ndjson = await new Response(exportStream(storage, projectId, {}, "ndjson")).text();
    const lines = ndjson.trimEnd().split("\n");
    expect(lines).toHaveLength(1100);
    const csv = (await new Response(exportStream(storage, projectId, {}, "csv")).text()).split("\r\n").slice(1, -1);
    for (const [i, conversion] of conversions.entries()) {
      // a plain copy: its fields come from the decoded data, the stored record's from the kept parts
      const decoded = JSON.parse(JSON.stringify(conversion));
      expect(JSON.parse(lines[i]!)).toEqual(decoded);
      expect(csv[i] + "\r\n").toBe(csvRow(decoded));
    }
    expect(csv.find((line) => line.includes(",10.1.4.73,"))).toMatch(/^[0-9a-f-]{36},[^,]+,success,10\.1\.4\.73,AU,[^,]*,Sydney,-?\d+\.\d+,-?\d+\.\d+,13340,/);
  });

  it("keeps spreadsheet formulas and separators inert", () => {
    const row = csvRow({ uniqueId: "u", createdAt: "t", status: "invalid-ip-address", data: bareIpObject('=HYPERLINK("x"),1', null) } as never);
    expect(row).toBe('u,t,invalid-ip-address,"\'=HYPERLINK(""x""),1",,,,,,,\r\n');
  });
});
