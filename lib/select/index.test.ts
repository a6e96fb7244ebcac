import { describe, expect, it } from "vitest";
import { applySelect, parseSelect } from "./index.js";
import { bareIpObject, type IpObject } from "../schemas/ip-object.js";

const london: IpObject = {
  ...bareIpObject("81.2.69.142", "ipv4"),
  is_eu: false,
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
      subdivision: null,
      city: {
        name: "London",
        geoname_id: 2643743,
        latitude: 51.5,
        longitude: -0.1,
        accuracy_radius: 10,
        metro_code: null,
        postal_code: null,
        timezone: { name: "Europe/London", time_now: "2026-11-22T03:04:05+00:00" },
      },
      flag: null,
      currency: null,
    },
  },
};

describe("parseSelect", () => {
  it("merges comma-separated and repeated values, in spec order, once each", () => {
    expect(parseSelect(["continent.code,ip", "ip", " type "])).toEqual({ ok: true, paths: ["ip", "type", "continent.code"] });
  });

  it("treats absent or empty values as no select", () => {
    expect(parseSelect(undefined)).toEqual({ ok: true, paths: null });
    expect(parseSelect(["", ","])).toEqual({ ok: true, paths: null });
  });

  it("names every unknown field", () => {
    expect(parseSelect(["ip,continent,nope", "asn.nme"])).toEqual({ ok: false, invalidFields: ["continent", "nope", "asn.nme"] });
  });
});

describe("applySelect", () => {
  it("keeps only the selected leaves at their nested positions", () => {
    const paths = parseSelect(["ip,continent.country.city.timezone.name,continent.code"]);
    expect(paths.ok && applySelect(london, paths.paths)).toEqual({
      ip: "81.2.69.142",
      continent: { code: "EU", country: { city: { timezone: { name: "Europe/London" } } } },
    });
  });

  it("leaves a null parent null", () => {
    const paths = parseSelect(["continent.country.subdivision.name,asn.number,is_eu"]);
    expect(paths.ok && applySelect(london, paths.paths)).toEqual({
      is_eu: false,
      continent: { country: { subdivision: null } },
      asn: null,
    });
  });

  it("returns the object untouched without select", () => {
    expect(applySelect(london, null)).toBe(london);
  });
});
