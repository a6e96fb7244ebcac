/** The bundled index's cache file: a warm start reads back exactly what was built, and a damaged file is rebuilt. */
import { mkdtempSync, readdirSync, rmSync, statSync, truncateSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadBundledIndex, type BundledIndex } from "./bundled-index.js";

describe("bundled index cache", () => {
  let dataDir: string;
  let built: BundledIndex;
  const logged: string[] = [];
  const log = { info: (line: string) => logged.push(line), warn: (line: string) => logged.push(line) };
  const cacheFile = () => join(dataDir, "geo", readdirSync(join(dataDir, "geo"))[0]!);

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), "ipatlas-bundled-index-"));
    built = loadBundledIndex(dataDir, log);
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  // byte for byte: a deep toEqual over half a million numbers takes seconds
  const bytes = (array: Uint32Array) => Buffer.from(array.buffer, array.byteOffset, array.byteLength);
  const sameArray = (a: Uint32Array, b: Uint32Array) => expect(bytes(a).equals(bytes(b))).toBe(true);
  const sameTables = (a: BundledIndex, b: BundledIndex) => {
    for (const name of ["asn4", "asn6", "country4", "country6"] as const) {
      expect(b[name].size).toBe(a[name].size);
      sameArray(a[name].starts, b[name].starts);
      sameArray(a[name].ends, b[name].ends);
      sameArray(a[name].values, b[name].values);
    }
    sameArray(a.asnNumbers, b.asnNumbers);
    expect(b.asnNames).toEqual(a.asnNames);
    expect(b.countryCodes).toEqual(a.countryCodes);
  };

  it("reads back from the file what it built from the CSV data", () => {
    expect(logged.filter((line) => line.startsWith("geo: built"))).toHaveLength(1);
    const read = loadBundledIndex(dataDir, log);
    expect(logged.filter((line) => line.startsWith("geo: built"))).toHaveLength(1);
    expect(read.asn4.size).toBeGreaterThan(100_000);
    sameTables(built, read);
  });

  it("rebuilds a cut-off file instead of serving part of it", () => {
    const path = cacheFile();
    const size = statSync(path).size;
    truncateSync(path, size - 6);
    const rebuilt = loadBundledIndex(dataDir, log);
    expect(logged.filter((line) => line.startsWith("geo: built"))).toHaveLength(2);
    expect(statSync(cacheFile()).size).toBe(size);
    sameTables(built, rebuilt);
  });
});
