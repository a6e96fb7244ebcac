import { describe, expect, it } from "vitest";
import ipaddr from "ipaddr.js";
import { dottedQuadOctets, parseIp } from "./parse.js";

describe("parseIp", () => {
  it.each([
    ["8.8.8.8", "8.8.8.8", "ipv4"],
    [" 8.8.8.8\n", "8.8.8.8", "ipv4"],
    ["\t81.2.69.160  ", "81.2.69.160", "ipv4"],
    ["0.0.0.0", "0.0.0.0", "ipv4"],
    ["2001:DB8:0:0:0:0:0:1", "2001:db8::1", "ipv6"],
    ["2001:0db8:0000:0000:0001:0000:0000:0001", "2001:db8::1:0:0:1", "ipv6"],
    ["2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1", "ipv6"],
    ["::", "::", "ipv6"],
    ["::1", "::1", "ipv6"],
    ["::FFFF:8.8.8.8", "::ffff:8.8.8.8", "ipv6"],
    ["::ffff:808:808", "::ffff:8.8.8.8", "ipv6"],
    // IPv4-compatible (deprecated) is not IPv4-mapped: it keeps its own address
    ["::8.8.8.8", "::808:808", "ipv6"],
    ["::1.2.3.4", "::102:304", "ipv6"],
    ["64:ff9b::8.8.8.8", "64:ff9b::808:808", "ipv6"],
    ["2001:db8:0:0:0:0:1.2.3.4", "2001:db8::102:304", "ipv6"],
  ])("reads %j as %s (%s)", (input, canonical, type) => {
    const parsed = parseIp(input);
    expect(parsed?.ip).toBe(canonical);
    expect(parsed?.type).toBe(type);
  });

  it("locates an IPv4-mapped IPv6 address by its embedded IPv4", () => {
    const parsed = parseIp("::ffff:8.8.8.8")!;
    expect(parsed.type).toBe("ipv6");
    expect(parsed.lookupIp).toBe("8.8.8.8");
    expect(parsed.lookupVersion).toBe(4);
  });

  it("looks a plain IPv6 address up as itself", () => {
    const parsed = parseIp("2a00:1450:4001::1")!;
    expect(parsed.lookupIp).toBe("2a00:1450:4001::1");
    expect(parsed.lookupVersion).toBe(6);
  });

  it.each([
    "",
    "   ",
    "010.0.0.1",
    "1.02.3.4",
    "127.1",
    "0x7f.0.0.1",
    "1.2.3.4.5",
    "256.1.1.1",
    "1.2.3.-4",
    "fe80::1%eth0",
    "fe80::1%1",
    "1.2.3.4/24",
    "2001:db8::/32",
    "1.2.3.4:80",
    "[2001:db8::1]:443",
    "[::1]",
    "example.com",
    "localhost",
    "::ffff:010.0.0.1",
    "1:2:3:4:5:6:7:8:9",
    "2001:db8:::1",
    "1.2.3.4 5.6.7.8",
    "8.8.8.8\u0000",
  ])("rejects %j", (input) => {
    expect(parseIp(input)).toBeNull();
  });
});

describe("dottedQuadOctets", () => {
  /** the reference: ipaddr's general parse, kept only when it writes the text back unchanged */
  const canonical = (text: string): number[] | null => {
    try {
      const address = ipaddr.IPv4.parse(text);
      return address.toString() === text ? address.octets : null;
    } catch {
      return null;
    }
  };

  it("reads exactly the canonical dotted quads, as ipaddr's parse and round trip do", () => {
    const spellings = [
      "1.2.3.4", "0.0.0.0", "255.255.255.255", "81.2.69.160", "256.1.1.1", "1.2.3", "1.2.3.4.5", "1..3.4", ".1.2.3", "1.2.3.",
      "01.2.3.4", "0.0.0.00", "1.2.3.0x10", "0x7f.0.0.1", "1.2.3.1234", "1.2.3.-4", " 1.2.3.4", "1.2.3.4 ", "", "127.1",
      "4294967295", "1.2.3.4a", "١.2.3.4", "1.2.3.4/24", "1.2.3.4:80",
    ];
    for (const text of spellings) expect(dottedQuadOctets(text), text).toEqual(canonical(text));
  });

  it("agrees with ipaddr on random addresses", () => {
    for (let i = 0; i < 2000; i++) {
      const text = Array.from({ length: 4 }, () => Math.floor(Math.random() * 256)).join(".");
      expect(dottedQuadOctets(text)).toEqual(canonical(text));
    }
  });
});
