import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseIp } from "../../../lib/ip/index.js";
import { BundledCity } from "../sources/lookups.js";
import { UpdatedOrBundledCity } from "./updated-sources.js";
import { downloadedPath } from "./paths.js";

const FIXTURES = resolve(import.meta.dirname, "../../../test/fixtures/maxmind");
const quiet = { info() {}, warn() {}, error() {} };

describe("UpdatedOrBundledCity", () => {
  const dir = mkdtempSync(join(tmpdir(), "ipatlas-updated-sources-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** BundledCity.open, counted */
  function countedBundled() {
    const opened = { count: 0 };
    return { opened, open: () => (opened.count++, BundledCity.open()) };
  }

  it("with a good downloaded file at start serves it and never opens the bundled data", async () => {
    const path = downloadedPath(join(dir, "with-file"), "city");
    mkdirSync(dirname(path), { recursive: true });
    copyFileSync(join(FIXTURES, "GeoIP2-City-Test.mmdb"), path);
    const bundled = countedBundled();
    const city = await UpdatedOrBundledCity.open(path, bundled.open, quiet, 60_000);
    try {
      expect(bundled.opened.count).toBe(0);
      expect(city.lookup(parseIp("81.2.69.160")!)?.country?.code).toBe("GB");
      expect(city.databases()[0]).toMatchObject({ name: "city", source: path });
    } finally {
      city.close();
    }
  });

  it("without one opens the bundled data, which answers", async () => {
    const bundled = countedBundled();
    const city = await UpdatedOrBundledCity.open(downloadedPath(join(dir, "without"), "city"), bundled.open, quiet, 60_000);
    try {
      expect(bundled.opened.count).toBe(1);
      expect(city.lookup(parseIp("8.8.8.8")!)?.country?.code).toBe("US");
      expect(city.databases()[0]).toMatchObject({ name: "city", kind: "bundled" });
    } finally {
      city.close();
    }
  });
});
