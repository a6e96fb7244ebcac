import { describe, expect, it } from "vitest";
import { parseLookupQuery } from "./lookup-query.js";

describe("parseLookupQuery", () => {
  it("reads an address, a bracketed or mapped IPv6, a CIDR block or a log line", () => {
    expect(parseLookupQuery(" 8.8.8.8 ")).toEqual({ ok: true, ip: "8.8.8.8", isPublic: true });
    expect(parseLookupQuery("[2001:4860:4860::8888]")).toEqual({ ok: true, ip: "2001:4860:4860::8888", isPublic: true });
    expect(parseLookupQuery("::FFFF:9.9.9.9")).toEqual({ ok: true, ip: "::ffff:9.9.9.9", isPublic: true });
    expect(parseLookupQuery("45.33.17.9/16")).toEqual({ ok: true, ip: "45.33.0.0", isPublic: true, prefix: 16 });
    expect(parseLookupQuery("Failed password from 10.1.2.3 port 22")).toEqual({ ok: true, ip: "10.1.2.3", isPublic: false });
  });
  it("says no to text without an address", () => {
    expect(parseLookupQuery("example.com")).toEqual({ ok: false });
    expect(parseLookupQuery("Version 4.2.1.0")).toEqual({ ok: false });
  });
});
