import { describe, expect, it } from "vitest";
import { parseIp } from "./parse.js";
import { addressRange, isPublicAddress } from "./classify.js";

const lookup = (text: string) => parseIp(text)!.lookup;

describe("isPublicAddress", () => {
  it.each([
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["192.168.1.1", "private"],
    ["127.0.0.1", "loopback"],
    ["169.254.10.10", "linkLocal"],
    ["100.64.0.1", "carrierGradeNat"],
    ["192.0.2.1", "reserved"],
    ["198.51.100.7", "reserved"],
    ["203.0.113.9", "reserved"],
    ["224.0.0.251", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["0.0.0.0", "unspecified"],
    ["240.0.0.1", "reserved"],
    ["::1", "loopback"],
    ["::", "unspecified"],
    ["fe80::1", "linkLocal"],
    ["fd00::1", "uniqueLocal"],
    ["ff02::1", "multicast"],
    ["2001:db8::1", "reserved"],
    ["64:ff9b::808:808", "rfc6052"],
    ["2002:808:808::1", "6to4"],
    ["2001::1", "teredo"],
    ["::ffff:192.168.0.1", "private"],
  ])("treats %s as %s, not public", (text, range) => {
    expect(addressRange(lookup(text))).toBe(range);
    expect(isPublicAddress(lookup(text))).toBe(false);
  });

  it("treats IPv6 outside 2000::/3 as not public", () => {
    expect(isPublicAddress(lookup("4000::1"))).toBe(false);
    expect(isPublicAddress(lookup("1::1"))).toBe(false);
  });

  it.each(["8.8.8.8", "1.1.1.1", "81.2.69.160", "2a00:1450:4001::1", "2606:4700::1111", "::ffff:8.8.8.8"])(
    "treats %s as public",
    (text) => {
      expect(isPublicAddress(lookup(text))).toBe(true);
    },
  );
});

describe("isPublicAddress on IPv4", () => {
  it("agrees with ipaddr.js range() on 200,000 addresses across the whole space", () => {
    let seed = 7;
    for (let i = 0; i < 200_000; i++) {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      const n = (seed ^ (i * 2654435761)) >>> 0;
      const address = parseIp(`${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`)!.lookup;
      expect(isPublicAddress(address)).toBe(addressRange(address) === "unicast");
    }
  });

  it.each(["0.0.0.0", "0.255.255.255", "9.255.255.255", "11.0.0.0", "100.63.255.255", "100.128.0.0", "223.255.255.255", "255.255.255.254"])(
    "agrees with range() at the edge %s",
    (text) => {
      expect(isPublicAddress(lookup(text))).toBe(addressRange(lookup(text)) === "unicast");
    },
  );
});
