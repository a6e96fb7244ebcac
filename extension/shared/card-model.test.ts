import { describe, expect, it } from "vitest";
import { bareIpObject, type IpObject } from "../../lib/schemas/ip-object.js";
import { blockSize, isEmptySummary, summarizeIp } from "./card-model.js";

function located(patch: { city?: string | null; registered?: string }): IpObject {
  return {
    ...bareIpObject("81.2.69.160", "ipv4"),
    continent: {
      name: "Europe",
      code: "EU",
      geoname_id: 6255148,
      country: {
        name: "United Kingdom",
        code: "GB",
        geoname_id: 2635167,
        phone_code: "+44",
        capital: "London",
        tld: ".uk",
        subdivision: { name: "England", code: "ENG" },
        city: patch.city === null ? null : { name: patch.city ?? "London", geoname_id: 1, latitude: 51.5, longitude: -0.1, accuracy_radius: 10, metro_code: null, postal_code: null, timezone: null },
        flag: { img: "http://x/flags/gb.svg", emoji: "🇬🇧", emoji_unicode: "U+1F1EC U+1F1E7" },
        currency: null,
      },
    },
    registered_country: { name: patch.registered ?? "United Kingdom", code: patch.registered ? "US" : "GB", geoname_id: 1 },
    asn: { number: 20712, name: "Andrews & Arnold Ltd" },
  };
}

describe("summarizeIp", () => {
  it("shows flag, country, place and network; the registered country only when it differs", () => {
    expect(summarizeIp("81.2.69.160", located({}))).toEqual({
      ip: "81.2.69.160",
      flag: "🇬🇧",
      flagImg: "http://x/flags/gb.svg",
      country: "United Kingdom",
      place: "London, England",
      network: "AS20712 Andrews & Arnold Ltd",
      registeredCountry: null,
    });
    expect(summarizeIp("81.2.69.160", located({ registered: "United States" })).registeredCountry).toBe("United States");
  });

  it("leaves out what is unknown", () => {
    expect(summarizeIp("81.2.69.160", located({ city: null })).place).toBe("England");
    const bare = summarizeIp("192.0.2.1", bareIpObject("192.0.2.1", "ipv4"));
    expect(isEmptySummary(bare)).toBe(true);
    expect(isEmptySummary(summarizeIp("x", null))).toBe(true);
  });
});

describe("blockSize", () => {
  it("counts the addresses of a CIDR block", () => {
    expect(blockSize("45.33.0.0", 16)).toBe("65,536");
    expect(blockSize("45.33.0.0", 32)).toBe("1");
    expect(blockSize("2001:db8::", 32)).toBe("2^96");
    expect(blockSize("2001:db8::", 112)).toBe("65,536");
  });
});
