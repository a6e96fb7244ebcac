import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readWholeFileSync, readWholeFiles, SharedFiles } from "./whole-files.js";

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

describe("SharedFiles, the data files a server thread shares with the threads started after it", () => {
  const dir = mkdtempSync(join(tmpdir(), "ipatlas-shared-files-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, bytes: Buffer) => {
    const path = join(dir, name);
    writeFileSync(path, bytes);
    return path;
  };

  it("shares nothing where it is not a server thread: plain buffers, nothing to hand on", async () => {
    const files = new SharedFiles(null);
    const path = file("plain", randomBytes(5000));
    const [read] = await readWholeFiles([path], 1000, files);
    expect(read!.buffer).not.toBeInstanceOf(SharedArrayBuffer);
    expect(readWholeFileSync(path, files).buffer).not.toBeInstanceOf(SharedArrayBuffer);
    expect(files.handOn()).toEqual([]);
  });

  it("hands on what the first thread read, which the next one takes as the same memory", async () => {
    const contents = [randomBytes(5000), randomBytes(3000)];
    const [a, b] = [file("a", contents[0]!), file("b", contents[1]!)];
    const first = new SharedFiles([]);
    const [readA] = await readWholeFiles([a], 1000, first);
    const readB = readWholeFileSync(b, first);
    expect(readA!.buffer).toBeInstanceOf(SharedArrayBuffer);
    const handed = first.handOn();
    expect(handed).toHaveLength(2);
    expect(first.handOn()).toEqual([]); // let go once handed on

    const next = new SharedFiles(handed);
    const [takenA] = await readWholeFiles([a], 1000, next);
    const takenB = readWholeFileSync(b, next);
    expect(takenA!.equals(contents[0]!) && takenB.equals(contents[1]!)).toBe(true);
    // one copy: a byte written through the first thread's buffer is seen through the next one's
    readA![0] = readA![0]! ^ 0xff;
    expect(takenA![0]).toBe(readA![0]);
    expect(takenB.buffer).toBe(readB.buffer);
  });

  it("reads a file anew when it changed on disk since it was handed on", async () => {
    const path = file("changing", randomBytes(4000));
    const first = new SharedFiles([]);
    readWholeFileSync(path, first);
    const replaced = randomBytes(4000);
    writeFileSync(path, replaced);
    utimesSync(path, new Date(), new Date(Date.now() + 60_000));
    const next = new SharedFiles(first.handOn());
    const read = readWholeFileSync(path, next);
    expect(read.equals(replaced)).toBe(true);
    expect(read.buffer).toBeInstanceOf(SharedArrayBuffer);
  });
});
