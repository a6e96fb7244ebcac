import { describe, expect, it } from "vitest";
import { countryFacts } from "./country-facts.js";
import { EU_MEMBERS } from "./eu-members.js";
import { flagEmoji } from "./flag-emoji.js";

describe("countryFacts", () => {
  it("knows the United Kingdom, not an EU member", () => {
    expect(countryFacts("GB")).toEqual({
      code: "GB",
      name: "United Kingdom",
      geonameId: 2635167,
      continentCode: "EU",
      phoneCode: "+44",
      capital: "London",
      tld: ".uk",
      isEu: false,
      currency: { name: "British Pound", code: "GBP", symbol: "£" },
      flagEmoji: "🇬🇧",
      flagUnicode: "U+1F1EC U+1F1E7",
    });
  });

  it.each([
    ["US", "+1", "USD", "NA", 6252001],
    ["CA", "+1", "CAD", "NA", 6251999],
    ["RU", "+7", "RUB", "EU", 2017370],
    ["DE", "+49", "EUR", "EU", 2921044],
    ["JP", "+81", "JPY", "AS", 1861060],
    ["VA", "+379", "EUR", "EU", 3164670],
    ["SH", "+290", "GBP", "AF", 3370751],
  ])("%s: phone %s, currency %s, continent %s, GeoNames %d", (code, phone, currency, continent, geonameId) => {
    const facts = countryFacts(code);
    expect(facts.phoneCode).toBe(phone);
    expect(facts.currency?.code).toBe(currency);
    expect(facts.continentCode).toBe(continent);
    expect(facts.geonameId).toBe(geonameId);
  });

  it("has exactly the 27 EU members", () => {
    expect(EU_MEMBERS.size).toBe(27);
    expect(EU_MEMBERS.has("GB")).toBe(false);
    expect(countryFacts("FR").isEu).toBe(true);
    expect(countryFacts("CH").isEu).toBe(false);
  });

  it("accepts lowercase codes and still answers for codes world-countries lacks", () => {
    expect(countryFacts("gb").code).toBe("GB");
    const unknown = countryFacts("ZZ");
    expect(unknown).toMatchObject({ code: "ZZ", name: null, geonameId: null, isEu: false, currency: null });
  });
});

describe("flagEmoji", () => {
  it("spells the code in regional indicators", () => {
    expect(flagEmoji("US")).toEqual({ emoji: "🇺🇸", unicode: "U+1F1FA U+1F1F8" });
    expect(flagEmoji("gb")).toBeNull();
    expect(flagEmoji("GBR")).toBeNull();
  });
});
