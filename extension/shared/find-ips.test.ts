import { describe, expect, it } from "vitest";
import { findIps } from "./find-ips.js";

const found = (text: string) => findIps(text).map((m) => text.slice(m.start, m.end));

describe("findIps", () => {
  it("finds IPv4 and IPv6 in prose, with punctuation around", () => {
    expect(found("Blocked 8.8.8.8, then (2001:4860:4860::8888). Done: 1.1.1.1.")).toEqual([
      "8.8.8.8",
      "2001:4860:4860::8888",
      "1.1.1.1",
    ]);
  });

  it("gives the canonical form and whether the address is public", () => {
    expect(findIps("2001:4860:4860:0000:0000:0000:0000:8888 10.0.0.1 ::FFFF:8.8.8.8 fe80::1")).toEqual([
      { start: 0, end: 39, ip: "2001:4860:4860::8888", isPublic: true },
      { start: 40, end: 48, ip: "10.0.0.1", isPublic: false },
      { start: 49, end: 63, ip: "::ffff:8.8.8.8", isPublic: true },
      { start: 64, end: 71, ip: "fe80::1", isPublic: false },
    ]);
  });

  it("finds addresses in log lines, with ports, brackets, CIDR and key=value", () => {
    expect(found('client=203.0.113.9:443 [2a00:1450:4001::1]:443 route 192.168.0.0/16 ip:81.2.69.160 "::1"')).toEqual([
      "203.0.113.9",
      "2a00:1450:4001::1",
      "192.168.0.0/16",
      "81.2.69.160",
      "::1",
    ]);
  });

  it("takes a CIDR block as its network: host bits cleared, prefix kept", () => {
    expect(findIps("route 45.33.0.0/16 and 45.33.17.9/16, 2001:db8::/32")).toEqual([
      { start: 6, end: 18, ip: "45.33.0.0", isPublic: true, prefix: 16 },
      { start: 23, end: 36, ip: "45.33.0.0", isPublic: true, prefix: 16 },
      { start: 38, end: 51, ip: "2001:db8::", isPublic: false, prefix: 32 },
    ]);
    // An impossible prefix is no CIDR: the address alone is still an address.
    expect(found("1.2.3.0/33")).toEqual(["1.2.3.0"]);
  });

  it("keeps bracketed and IPv4-mapped IPv6 whole", () => {
    expect(found("http://[2a00:1450:4001::1]:8080/ and [::ffff:8.8.8.8] and ::ffff:9.9.9.9.")).toEqual([
      "2a00:1450:4001::1",
      "::ffff:8.8.8.8",
      "::ffff:9.9.9.9",
    ]);
  });

  it.each([
    ["version strings", "release 1.2.3.4.5 and v1.2.3.4"],
    ["a number after the word version", "Version string 4.2.1.0, version: 8.8.8.8, Firmware 9.9.9.9, v 1.1.1.1"],
    ["leading zeros", "010.0.0.1 and 1.2.3.04"],
    ["out of range octets", "256.1.1.1 and 1.2.3.999"],
    ["times and MAC addresses", "at 12:30:45 from 00:1a:2b:3c:4d:5e"],
    ["C++ scopes and bare double colons", "std::vector and a :: b and ::"],
    ["hex words", "deadbeef:cafe and abc:def"],
    ["zone ids", "fe80::1%eth0"],
    ["too many groups", "1:2:3:4:5:6:7:8:9"],
    ["numbers glued to letters", "a8.8.8.8 8.8.8.8b"],
  ])("ignores %s", (_name, text) => {
    expect(found(text)).toEqual([]);
  });

  it("keeps going after a near miss", () => {
    expect(found("1.2.3.4.5 9.9.9.9")).toEqual(["9.9.9.9"]);
  });

  it("stops after the limit, for slicing huge text nodes", () => {
    expect(findIps("1.1.1.1 8.8.8.8 9.9.9.9", 2).map((m) => m.ip)).toEqual(["1.1.1.1", "8.8.8.8"]);
    expect(findIps("1.1.1.1 8.8.8.8 9.9.9.9", 1, 7)).toEqual([{ start: 8, end: 15, ip: "8.8.8.8", isPublic: true }]);
  });

  it("is quick on a log of 10,000 lines", () => {
    const log = Array.from({ length: 10_000 }, (_, i) => `2026-11-22T03:04:05Z GET /x 200 from 81.${i >> 8}.${i & 255}.7 ua=curl/8.5.0`).join("\n");
    expect(findIps(log)).toHaveLength(10_000);
  });
});
