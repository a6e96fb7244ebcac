import { describe, expect, it } from "vitest";
import { canonicalLang, continentNameIn, countryNameIn, isEnglish, langFromAcceptLanguage, nameIn } from "./index.js";

describe("language of names", () => {
  it("canonicalises tags and refuses what is not one", () => {
    expect(canonicalLang("pt-br")).toBe("pt-BR");
    expect(canonicalLang(" DE ")).toBe("de");
    expect(canonicalLang("zh-hans-cn")).toBe("zh-Hans-CN");
    for (const bad of ["", "*", "not a tag", "x".repeat(40), "de_DE", "12"]) expect(canonicalLang(bad)).toBeNull();
  });

  it("takes the Accept-Language tag of highest weight, the first on a tie", () => {
    expect(langFromAcceptLanguage("fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5")).toBe("fr-CH");
    expect(langFromAcceptLanguage("en;q=0.5, ja;q=0.8")).toBe("ja");
    expect(langFromAcceptLanguage("de, fr")).toBe("de");
    expect(langFromAcceptLanguage("*, ru;q=0.1")).toBe("ru");
    expect(langFromAcceptLanguage("es;q=0, bogus tag")).toBeNull();
    expect(langFromAcceptLanguage(undefined)).toBeNull();
  });

  it("knows English needs nothing", () => {
    expect(isEnglish(null)).toBe(true);
    expect(isEnglish("en-GB")).toBe(true);
    expect(isEnglish("es")).toBe(false);
  });

  it("finds a MaxMind name by exact tag, then by language", () => {
    const names = { en: "Munich", de: "München", "pt-BR": "Munique", "zh-CN": "慕尼黑" };
    expect(nameIn(names, "de")).toBe("München");
    expect(nameIn(names, "de-AT")).toBe("München");
    expect(nameIn(names, "pt")).toBe("Munique");
    expect(nameIn(names, "zh-TW")).toBe("慕尼黑");
    expect(nameIn(names, "it")).toBeNull();
    expect(nameIn(null, "de")).toBeNull();
  });

  it("names countries and continents in any language the runtime knows", () => {
    expect(countryNameIn("DE", "fr")).toBe("Allemagne");
    expect(countryNameIn("JP", "ja")).toBe("日本");
    expect(continentNameIn("EU", "de")).toBe("Europa");
    expect(continentNameIn("NA", "es")).toBe("América del Norte");
    expect(countryNameIn("DE", "qaa")).toBeNull();
  });
});
