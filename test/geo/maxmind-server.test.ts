/**
 * The engine inside the real server: IPATLAS_CITY_DB / IPATLAS_ASN_DB drop-in over HTTP, the
 * file replaced while the server runs (picked up, or refused with the old data kept), /healthz
 * listing the databases, and the flag images that flag.img points at.
 */
import { copyFileSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type ApiHarness } from "../helpers/api.js";

const FIXTURES = resolve(import.meta.dirname, "../fixtures/maxmind");

describe("MaxMind drop-in in the running server", () => {
  let api: ApiHarness;
  let key: string;
  let dir: string;
  let cityPath: string;
  const replaceCity = (fixture: string) => {
    copyFileSync(join(FIXTURES, fixture), join(dir, "incoming.mmdb"));
    renameSync(join(dir, "incoming.mmdb"), cityPath);
  };
  const convert = async (ip: string) => (await api.call(`/convert?ip=${encodeURIComponent(ip)}`, { key })).body;
  const until = async (condition: () => Promise<boolean>, what: string) => {
    const deadline = Date.now() + 10_000;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${api.server.output()}`);
      await new Promise((wait) => setTimeout(wait, 200));
    }
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "ipatlas-maxmind-"));
    cityPath = join(dir, "GeoIP2-City.mmdb");
    replaceCity("GeoIP2-City-Test.mmdb");
    api = await startApi("sqlite", { IPATLAS_CITY_DB: cityPath, IPATLAS_ASN_DB: join(FIXTURES, "GeoLite2-ASN-Test.mmdb") });
    key = (await api.project("scale")).secretKey;
  });
  afterAll(async () => {
    await api?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers with the MaxMind fields", async () => {
    const body = await convert("81.2.69.160");
    expect(body.code).toBe(200);
    expect(body.data).toMatchObject({
      ip: "81.2.69.160",
      type: "ipv4",
      is_eu: false,
      continent: { code: "EU", geoname_id: 6255148, country: { code: "GB", geoname_id: 2635167, phone_code: "+44", currency: { code: "GBP" } } },
    });
    expect(body.data.continent.country.subdivision).toEqual({ name: "England", code: "ENG" });
    expect(body.data.continent.country.city).toMatchObject({ name: "London", geoname_id: 2643743, accuracy_radius: expect.any(Number) });
    expect(body.data.continent.country.flag.img).toBe(`${api.server.url}/flags/gb.svg`);
  });

  it("names MaxMind as the data to credit", async () => {
    const answer = await api.call("/convert?ip=81.2.69.160", { key });
    expect(answer.headers.get("x-data-sources")).toBe("MaxMind");
  });

  it("serves the flag that flag.img points at, cached for a year", async () => {
    const { data } = await convert("81.2.69.160");
    const response = await fetch(data.continent.country.flag.img);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/svg+xml");
    expect(response.headers.get("cache-control")).toContain("max-age=31536000");
    expect(await response.text()).toContain("<svg");
  });

  it("lists the MaxMind files in /healthz", async () => {
    const health = await api.call("/healthz");
    expect(health.status).toBe(200);
    const databases = health.body.data.databases as Array<{ name: string; kind: string; source: string; buildDate: string }>;
    // the age depends on today's date: only that it is given and agrees with `stale`
    expect(databases.find((db) => db.name === "city")).toEqual({
      name: "city",
      kind: "maxmind",
      source: cityPath,
      buildDate: "2026-02-04T22:49:29.000Z",
      ageDays: expect.any(Number),
      stale: health.body.data.databases.find((db: { name: string }) => db.name === "city").ageDays > health.body.data.maxAgeDays,
    });
    expect(databases.find((db) => db.name === "asn")?.kind).toBe("maxmind");
  });

  it("keeps serving when the file is replaced by a broken one, and picks up a good replacement", async () => {
    expect((await convert("214.0.0.0")).data.continent.country.code).toBe("SG");
    replaceCity("GeoIP2-City-Test-Broken-Double-Format.mmdb");
    await until(async () => api.server.output().includes("refused city database"), "the broken file to be refused");
    expect((await convert("214.0.0.0")).data.continent.country.code).toBe("SG");

    replaceCity("GeoLite2-City-Test.mmdb"); // knows nothing of 214.0.0.0
    await until(async () => (await convert("214.0.0.0")).data.continent === null, "the new file to serve");
    expect((await convert("81.2.69.160")).data.continent.country.code).toBe("GB");
  });
});
