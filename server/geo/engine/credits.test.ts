import { describe, expect, it } from "vitest";
import { dataSources } from "./credits.js";
import type { GeoDatabaseInfo } from "../types.js";

const db = (name: string, kind: string): GeoDatabaseInfo => ({ name, kind, source: "x", buildDate: null });

describe("dataSources", () => {
  it("credits DB-IP for the bundled city or ASN data and MaxMind for its files", () => {
    expect(dataSources([db("city", "bundled"), db("asn", "bundled"), db("registered-country", "bundled")])).toEqual(["DB-IP"]);
    // a MaxMind City file with the bundled ASN data (which merges DB-IP's ASN Lite)
    expect(dataSources([db("city", "maxmind"), db("registered-country", "maxmind"), db("asn", "bundled")])).toEqual(["DB-IP", "MaxMind"]);
    expect(dataSources([db("city", "maxmind"), db("registered-country", "maxmind"), db("asn", "maxmind")])).toEqual(["MaxMind"]);
    // NRO's registered countries alone ask for no link
    expect(dataSources([db("city", "maxmind"), db("asn", "maxmind"), db("registered-country", "bundled")])).toEqual(["MaxMind"]);
  });
});
