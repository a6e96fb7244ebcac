/**
 * Names in the asker's language over HTTP (docs/api.md "Language"): `lang`, Accept-Language on
 * GET, the English fallback, the 400 for a bad tag, and stored conversions keeping the language
 * they were answered in. The city data is MaxMind's test City file, which has names in 8 languages.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendNames } from "../helpers/backends.js";
import { MAXMIND_FIXTURES } from "../helpers/data-source-server.js";
import { MESSAGES } from "../../lib/schemas/messages.js";
import { expectEnvelope, startApi, type ApiHarness } from "../helpers/api.js";

const LONDON = "81.2.69.160";

describe.each(backendNames)("lang (%s)", (backendName) => {
  let api: ApiHarness;
  let key: string;

  beforeAll(async () => {
    api = await startApi(backendName, { IPATLAS_CITY_DB: join(MAXMIND_FIXTURES, "GeoIP2-City-Test.mmdb") });
    key = (await api.project("scale")).secretKey;
  });
  afterAll(() => api.stop());

  const names = (data: any) => ({
    continent: data.continent.name,
    country: data.continent.country.name,
    subdivision: data.continent.country.subdivision.name,
    city: data.continent.country.city.name,
    registered: data.registered_country.name,
  });

  it("answers in the `lang` of the query, from the data's names", async () => {
    const de = await api.call(`/convert?ip=${LONDON}&lang=de`, { key });
    expectEnvelope(de, 200, MESSAGES.success);
    // no German name for England in the data: English
    expect(names(de.body.data)).toEqual({ continent: "Europa", country: "Vereinigtes Königreich", subdivision: "England", city: "London", registered: "USA" });
    expect(de.headers.get("content-language")).toBe("de");
    const ja = await api.call(`/convert?ip=${LONDON}&lang=ja`, { key });
    expect(names(ja.body.data)).toMatchObject({ continent: "ヨーロッパ", country: "イギリス", city: "ロンドン" });
    const es = await api.call(`/convert?ip=${LONDON}&lang=es`, { key });
    expect(names(es.body.data)).toEqual({ continent: "Europa", country: "Reino Unido", subdivision: "Inglaterra", city: "Londres", registered: "Estados Unidos" });
    // the codes and everything else do not change with the language
    const en = await api.call(`/convert?ip=${LONDON}`, { key });
    expect({ ...es.body.data, completion_time: null, continent: null, registered_country: null }).toEqual({ ...en.body.data, completion_time: null, continent: null, registered_country: null });
    expect(names(en.body.data)).toEqual({ continent: "Europe", country: "United Kingdom", subdivision: "England", city: "London", registered: "United States" });
    expect(en.headers.get("content-language")).toBe("en");
  });

  it("finds a language by its base or region (pt → pt-BR) and takes country names from CLDR for others", async () => {
    const pt = await api.call(`/convert?ip=${LONDON}&lang=pt`, { key });
    expect(names(pt.body.data)).toMatchObject({ country: "Reino Unido", city: "Londres" });
    const it_ = await api.call(`/convert?ip=${LONDON}&lang=it`, { key });
    // Italian is not in MaxMind's files: country and continent from CLDR, the city in English
    expect(names(it_.body.data)).toEqual({ continent: "Europa", country: "Regno Unito", subdivision: "England", city: "London", registered: "Stati Uniti" });
  });

  it("takes Accept-Language on GET when there is no `lang`, and says it varies by it", async () => {
    const fr = await api.call(`/convert?ip=${LONDON}`, { key, headers: { "accept-language": "fr-CH, fr;q=0.9, en;q=0.8" } });
    expect(names(fr.body.data)).toMatchObject({ country: "Royaume-Uni", city: "Londres" });
    expect(fr.headers.get("content-language")).toBe("fr-CH");
    expect(fr.headers.get("vary")).toMatch(/accept-language/i);
    const both = await api.call(`/convert?ip=${LONDON}&lang=ru`, { key, headers: { "accept-language": "fr" } });
    expect(names(both.body.data).city).toBe("Лондон");
    const junk = await api.call(`/convert?ip=${LONDON}`, { key, headers: { "accept-language": "*;q=0.5, ???" } });
    expectEnvelope(junk, 200);
    expect(names(junk.body.data).city).toBe("London");
  });

  it("POST takes `lang` but not Accept-Language", async () => {
    const answer = await api.call(`/convert?lang=es`, { key, json: { ips: [LONDON, "10.0.0.1"] }, headers: { "accept-language": "de" } });
    expectEnvelope(answer, 200);
    expect(names(answer.body.data[0].conversion).city).toBe("Londres");
    const header = await api.call(`/convert`, { key, json: { ips: [LONDON] }, headers: { "accept-language": "de" } });
    expect(names(header.body.data[0].conversion).country).toBe("United Kingdom");
  });

  it("refuses a `lang` that is no language tag, and converts nothing", async () => {
    for (const bad of ["not a tag", "x".repeat(40), "de_DE", "*"]) {
      const answer = await api.call(`/convert?ip=${LONDON}&lang=${encodeURIComponent(bad)}`, { key });
      expectEnvelope(answer, 400, MESSAGES.invalidLang);
      expect(answer.headers.get("x-conversion-id")).toBeNull();
    }
  });

  it("stores a conversion as answered, in its language; select cuts it as usual", async () => {
    const ids: string[] = [];
    for (const lang of ["ja", "de", "ja", "en"]) {
      const answer = await api.call(`/convert?ip=${LONDON}&lang=${lang}`, { key });
      ids.push(answer.headers.get("x-conversion-id")!);
    }
    const stored = await Promise.all(ids.map((id) => api.call(`/conversions/get?conversionId=${id}&select=continent.country.name,continent.country.city.name`, { key })));
    expect(stored.map((answer) => answer.body.data.data.continent.country)).toEqual([
      { name: "イギリス", city: { name: "ロンドン" } },
      { name: "Vereinigtes Königreich", city: { name: "London" } },
      { name: "イギリス", city: { name: "ロンドン" } },
      { name: "United Kingdom", city: { name: "London" } },
    ]);
  });
});
