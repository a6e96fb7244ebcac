import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readWholeFiles } from "./whole-files.js";

describe("readWholeFiles", () => {
  const dir = mkdtempSync(join(tmpdir(), "ipatlas-whole-files-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reads each file whole and in order, in pieces and a last smaller one", async () => {
    const contents = [randomBytes(10_001), Buffer.alloc(0), randomBytes(999), randomBytes(3000)];
    const paths = contents.map((bytes, i) => {
      const path = join(dir, `file-${i}`);
      writeFileSync(path, bytes);
      return path;
    });
    const read = await readWholeFiles(paths, 1000);
    expect(read.map((bytes) => bytes.length)).toEqual(contents.map((bytes) => bytes.length));
    read.forEach((bytes, i) => expect(bytes.equals(contents[i]!), `file ${i}`).toBe(true));
  });

  it("rejects for a file that is not there", async () => {
    await expect(readWholeFiles([join(dir, "missing")])).rejects.toThrow(/ENOENT/);
  });
});
