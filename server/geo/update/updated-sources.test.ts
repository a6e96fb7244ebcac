import { copyFileSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
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

  it("lets the bundled data go once a downloaded file has loaded", async () => {
    // a full collection on demand, to see that nothing holds the bundled data any more
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const path = downloadedPath(join(dir, "later"), "city");
    let bundled: WeakRef<BundledCity> | undefined;
    const city = await UpdatedOrBundledCity.open(path, async () => {
      const opened = await BundledCity.open();
      bundled = new WeakRef(opened);
      return opened;
    }, quiet, 20);
    try {
      expect(city.databases()[0]).toMatchObject({ kind: "bundled" });
      mkdirSync(dirname(path), { recursive: true });
      copyFileSync(join(FIXTURES, "GeoIP2-City-Test.mmdb"), `${path}.new`);
      renameSync(`${path}.new`, path);
      await expect.poll(() => city.databases()[0]?.source, { timeout: 10_000 }).toBe(path);
      expect(city.lookup(parseIp("81.2.69.160")!)?.country?.code).toBe("GB");
      // a WeakRef's target is kept until the task that made it ends
      await new Promise((resolve) => setTimeout(resolve, 0));
      gc();
      // a boolean: printed, the bundled data itself would fill the heap
      expect(bundled!.deref() === undefined, "the bundled data is still held").toBe(true);
    } finally {
      city.close();
    }
  });
});
