import { describe, expect, it } from "vitest";
import { DEFAULT_FIELDS, keyProblem, parseFields, parseTheme, parseVariant, readSettings, type SettingAttribute } from "./settings.js";

const attrs = (values: Partial<Record<SettingAttribute, string>>) => (name: SettingAttribute) => values[name] ?? null;

describe("readSettings", () => {
  it("uses the element's attributes", () => {
    const settings = readSettings(attrs({ key: "ipa_pk_abc", ip: " 8.8.8.8 ", fields: "flag,city", theme: "dark", lang: "de" }));
    expect(settings).toEqual({ key: "ipa_pk_abc", ip: "8.8.8.8", fields: ["flag", "city"], theme: "dark", variant: "card", lang: "de" });
  });

  it("falls back to the script's data-* values, attribute by attribute", () => {
    const settings = readSettings(attrs({ ip: "1.1.1.1" }), attrs({ key: "ipa_pk_script", ip: "9.9.9.9", theme: "light" }));
    expect(settings.key).toBe("ipa_pk_script");
    expect(settings.ip).toBe("1.1.1.1");
    expect(settings.theme).toBe("light");
  });

  it("treats an empty ip as the visitor's own address and fills defaults", () => {
    const settings = readSettings(attrs({ ip: "" }));
    expect(settings).toEqual({ key: "", ip: "", fields: DEFAULT_FIELDS, theme: "auto", variant: "card", lang: "" });
  });
});

describe("parseFields", () => {
  it("keeps known names in the widget's order, case- and space-insensitive", () => {
    expect(parseFields(" ASN, flag  city,bogus")).toEqual(["flag", "city", "asn"]);
    expect(parseFields("time,region,country")).toEqual(["country", "region", "time"]);
  });
  it("falls back to the defaults when nothing usable is given", () => {
    expect(parseFields("")).toEqual(DEFAULT_FIELDS);
    expect(parseFields("nope,none")).toEqual(DEFAULT_FIELDS);
    expect(parseFields(null)).toEqual(DEFAULT_FIELDS);
  });
});

describe("parseTheme", () => {
  it("accepts light, dark and auto and defaults to auto", () => {
    expect(parseTheme("DARK")).toBe("dark");
    expect(parseTheme("light")).toBe("light");
    expect(parseTheme("purple")).toBe("auto");
    expect(parseTheme(undefined)).toBe("auto");
  });
});

describe("parseVariant", () => {
  it("accepts card and badge and defaults to card", () => {
    expect(parseVariant(" Badge ")).toBe("badge");
    expect(parseVariant("card")).toBe("card");
    expect(parseVariant("pill")).toBe("card");
    expect(parseVariant(null)).toBe("card");
  });
});

describe("keyProblem", () => {
  it("accepts public keys only and refuses to put secret keys on the wire", () => {
    expect(keyProblem("ipa_pk_abc")).toBeNull();
    expect(keyProblem("")).toMatch(/No public key/);
    expect(keyProblem("ipa_sk_abc")).toMatch(/secret key must never/);
    expect(keyProblem("hello")).toMatch(/not a public key/);
  });
});
