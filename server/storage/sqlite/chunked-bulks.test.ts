/**
 * Bulks larger than a chunk are written in several transactions (Dialect.chunkRows): other
 * requests' rows land between the chunks, the bulk is all-or-nothing to readers and to the
 * quota, and a server that dies in the middle leaves nothing behind.
 */
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBackend, type Backend } from "../../../test/helpers/backends.js";
import { sampleConversion } from "../../../test/helpers/sample-conversions.js";
import { observeGroupCommits } from "../group-commit.js";
import { parseIpSearch } from "../ip-bytes.js";
import { ipSearchPlan } from "../ip-prefix.js";
import { createStorage, type StorageOptions } from "../index.js";
import type { SqlStorage } from "../sql-storage.js";
import type { CommitResult, Storage } from "../types.js";
import type { SqliteDialect } from "./dialect.js";

const PERIOD = "2026-11";
const BULK = 2500;

const sqliteDb = (storage: Storage) => (storage as SqlStorage<SqliteDialect>).dialect.db;
const bulkOf = (n: number, ip = (i: number) => `10.${i >> 8}.${i & 255}.1`) => Array.from({ length: n }, (_, i) => sampleConversion(ip(i)));

describe.each([false, true])("chunked bulks on sqlite (writer thread: %s)", (writerThread) => {
  let backend: Backend;
  let options: StorageOptions;
  let storage: Storage;

  beforeAll(async () => {
    backend = await createBackend("sqlite");
    options = { ...backend.storageOptions(), sqliteWriterThread: writerThread };
    storage = await createStorage(options);
  });
  afterAll(async () => {
    await storage?.close();
    await backend?.dispose();
  });

  const newProject = () => storage.createProject({ name: "bulks", plan: "scale" });

  /** Runs `during` once, right after the bulk's first chunk committed (before the rest is written). */
  async function commitBulk(projectId: string, n: number, limit: number | null, during: () => void): Promise<CommitResult> {
    let seen = false;
    const stop = observeGroupCommits((group) => {
      if (seen || group.weight < 1000) return;
      seen = true;
      during();
    });
    try {
      return await storage.commitConversions({ projectId, period: PERIOD, limit, conversions: bulkOf(n) });
    } finally {
      stop();
      expect(seen).toBe(true);
    }
  }

  it("stores a bulk whole, numbered in order and counted once, and keeps it out of reads until it is", async () => {
    const project = await newProject();
    const dialect = (storage as SqlStorage<SqliteDialect>).dialect;
    const seq = sqliteDb(storage).prepare("SELECT seq FROM projects WHERE id = ?").pluck().get(project.id) as number;
    const plan = ipSearchPlan(parseIpSearch("10."))!;
    const seenDuring: Array<Promise<unknown>> = [];
    const result = await commitBulk(project.id, BULK, null, () => {
      // The first chunk's rows are in the file, yet every read leaves them out and nothing is
      // counted. (The dialect's reads run synchronously here, before the next chunk.)
      seenDuring.push(
        Promise.resolve(sqliteDb(storage).prepare("SELECT count(*) FROM conversions WHERE project = ?").pluck().get(seq)),
        dialect.countConversions(seq, plan),
        dialect.listPage(seq, { kind: "walk", filter: null }, 50, 0).then((rows) => rows.length),
        dialect.listPage(seq, { kind: "walk", filter: { key: plan.scans[0]!.key! } }, 50, 0).then((rows) => rows.length),
        dialect.listPage(seq, { kind: "matches", plan }, 50, 0).then((rows) => rows.length),
      );
    });
    expect(await Promise.all(seenDuring)).toEqual([1000, { projectRows: 0, matches: 0 }, 0, 0, 0]);
    expect(result).toEqual({ accepted: true, used: BULK });
    const page = await storage.listConversions({ projectId: project.id, offset: 0, limit: 50 });
    expect(page.totalCount).toBe(BULK);
    expect(page.conversions.map((c) => c.id)).toEqual(Array.from({ length: 50 }, (_, i) => BULK - i));
    const filtered = await storage.listConversions({ projectId: project.id, offset: 0, limit: 50, ip: parseIpSearch("10.") });
    expect(filtered.totalCount).toBe(BULK);
    expect(await storage.usage(project.id, PERIOD)).toBe(BULK);
    expect(sqliteDb(storage).prepare("SELECT count(*) FROM open_bulks").pluck().get()).toBe(0);
  });

  it("writes a one-row commit that arrives during a bulk between its chunks, not after the bulk", async () => {
    const project = await newProject();
    const order: string[] = [];
    let single: Promise<CommitResult> | undefined;
    await commitBulk(project.id, BULK, null, () => {
      single = storage.commitConversions({ projectId: project.id, period: PERIOD, limit: null, conversions: [sampleConversion("192.0.2.1")] });
      void single.then(() => order.push("single"));
    }).then(() => order.push("bulk"));
    await single;
    expect(order).toEqual(["single", "bulk"]);
    const page = await storage.listConversions({ projectId: project.id, offset: 0, limit: 50, ip: parseIpSearch("192.0.2.1") });
    // numbered after the whole bulk, whose numbers were taken by its first chunk
    expect(page.conversions.map((c) => c.id)).toEqual([BULK + 1]);
    expect(await storage.usage(project.id, PERIOD)).toBe(BULK + 1);
  });

  it("holds the whole bulk's quota from its first chunk, and refuses a bulk that does not fit at all", async () => {
    const project = await newProject();
    let single: Promise<CommitResult> | undefined;
    const result = await commitBulk(project.id, BULK, BULK, () => {
      single = storage.commitConversions({ projectId: project.id, period: PERIOD, limit: BULK, conversions: [sampleConversion()] });
    });
    expect(result).toEqual({ accepted: true, used: BULK });
    expect(await single).toEqual({ accepted: false, used: 0 });

    const other = await newProject();
    const refused = await storage.commitConversions({ projectId: other.id, period: PERIOD, limit: BULK - 1, conversions: bulkOf(BULK) });
    expect(refused).toEqual({ accepted: false, used: 0 });
    expect((await storage.listConversions({ projectId: other.id, offset: 0, limit: 10 })).totalCount).toBe(0);
    expect(await storage.usage(other.id, PERIOD)).toBe(0);
  });
});

describe("a bulk whose server died between two chunks", () => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await createBackend("sqlite");
  });

  it("is removed, rows and held quota, when the file is next opened; what was committed before stays", async () => {
    const options = backend.storageOptions();
    const setup = await createStorage(options);
    const project = await setup.createProject({ name: "crash", plan: "scale" });
    await setup.close();
    // A process that stores one row, then starts a bulk and is killed right after its first chunk.
    const script = `
      import { createStorage } from ${JSON.stringify(new URL("../index.ts", import.meta.url).href)};
      import { observeGroupCommits } from ${JSON.stringify(new URL("../group-commit.ts", import.meta.url).href)};
      import { sampleConversion } from ${JSON.stringify(new URL("../../../test/helpers/sample-conversions.ts", import.meta.url).href)};
      const storage = await createStorage(${JSON.stringify(options)});
      const commit = (conversions) => storage.commitConversions({ projectId: ${JSON.stringify(project.id)}, period: "${PERIOD}", limit: null, conversions });
      await commit([sampleConversion("192.0.2.7")]);
      observeGroupCommits((group) => { if (group.weight >= 1000) process.kill(process.pid, "SIGKILL"); });
      await commit(Array.from({ length: ${BULK} }, () => sampleConversion()));
      console.log("the bulk was not interrupted");
    `;
    expect(() => execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { stdio: "pipe" })).toThrow(/SIGKILL/);

    const reopened = await createStorage(options);
    try {
      const db = sqliteDb(reopened);
      expect(db.prepare("SELECT count(*) FROM open_bulks").pluck().get()).toBe(0);
      expect(db.prepare("SELECT count(*) FROM conversions").pluck().get()).toBe(1);
      expect(await reopened.usage(project.id, PERIOD)).toBe(1);
      const page = await reopened.listConversions({ projectId: project.id, offset: 0, limit: 10 });
      expect(page.conversions.map((c) => c.data.ip)).toEqual(["192.0.2.7"]);
    } finally {
      await reopened.close();
    }
  });
});
