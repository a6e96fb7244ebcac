/**
 * A bulk on the writer thread stops when a light request (a GET's row) waits for the one writer,
 * commits what it has and goes on after that request (docs/storage.md "Bulks in pieces"). To
 * every other request the bulk is still all-or-nothing: reads leave an open bulk out, its quota is
 * held from its first piece, and a server that dies in the middle leaves nothing behind.
 */
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBackend, type Backend } from "../../../test/helpers/backends.js";
import { sampleConversion } from "../../../test/helpers/sample-conversions.js";
import { observeGroupCommits } from "../group-commit.js";
import { parseIpSearch } from "../ip-bytes.js";
import { ipSearchPlan } from "../ip-prefix.js";
import { createStorage } from "../index.js";
import type { SqlStorage, WriteTurn } from "../sql-storage.js";
import type { CommitResult, Storage } from "../types.js";
import type { SqliteDialect } from "./dialect.js";

const PERIOD = "2026-11";
const BULK = 3000;

const sqliteDb = (storage: Storage) => (storage as SqlStorage<SqliteDialect>).dialect.db;
const bulkOf = (n: number) => Array.from({ length: n }, (_, i) => sampleConversion(`10.${i >> 8}.${i & 255}.1`));

/**
 * A write turn (taken right before each write is handed to the writer) that runs the armed
 * callback once, then waits a turn of the event loop so that what it submits is queued before the
 * write goes on: it arrives while that write is in flight.
 */
function turnWithHook() {
  let armed: (() => void) | null = null;
  const turn: WriteTurn = {
    take: async () => {
      const run = armed;
      armed = null;
      if (!run) return;
      run();
      await new Promise((resolve) => setImmediate(resolve));
    },
    release: () => {},
  };
  return { turn, arm: (run: () => void) => (armed = run) };
}

/** The rows of each group commit that wrote 100 rows or more (a bulk's pieces), while `run` runs. */
async function bulkGroups<T>(run: () => Promise<T>): Promise<{ result: T; groups: number[] }> {
  const groups: number[] = [];
  const stop = observeGroupCommits((group) => {
    if (group.weight >= 100) groups.push(group.weight);
  });
  try {
    return { result: await run(), groups };
  } finally {
    stop();
  }
}

describe("bulks in pieces on the SQLite writer thread", () => {
  let backend: Backend;
  let storage: Storage;
  const hook = turnWithHook();

  beforeAll(async () => {
    backend = await createBackend("sqlite");
    storage = await createStorage({ ...backend.storageOptions(), sqliteWriterThread: true, writeTurn: hook.turn });
  });
  afterAll(async () => {
    await storage?.close();
    await backend?.dispose();
  });

  const newProject = () => storage.createProject({ name: "bulks", plan: "scale" });
  const commit = (projectId: string, conversions = bulkOf(BULK), limit: number | null = null) =>
    storage.commitConversions({ projectId, period: PERIOD, limit, conversions });

  it("writes a one-row commit that arrives during a bulk before the rest of the bulk", async () => {
    const project = await newProject();
    const order: string[] = [];
    let single: Promise<CommitResult> | undefined;
    hook.arm(() => {
      single = commit(project.id, [sampleConversion("192.0.2.1")]);
      void single.then(() => order.push("single"));
    });
    const { result, groups } = await bulkGroups(() => commit(project.id).then((r) => (order.push("bulk"), r)));
    expect(await single).toEqual({ accepted: true, used: 1 });
    expect(order).toEqual(["single", "bulk"]);
    expect(result).toEqual({ accepted: true, used: BULK + 1 });
    // the bulk's first piece stopped for it, the rest went on afterwards
    expect(groups).toEqual([100, BULK - 100]);
    const page = await storage.listConversions({ projectId: project.id, offset: 0, limit: 50 });
    expect(page.totalCount).toBe(BULK + 1);
    // the bulk took its numbers in its first piece: the single row comes after all of them
    const single1 = await storage.listConversions({ projectId: project.id, offset: 0, limit: 50, ip: parseIpSearch("192.0.2.1") });
    expect(single1.conversions.map((c) => c.id)).toEqual([BULK + 1]);
    const ids = (await storage.listConversions({ projectId: project.id, offset: 0, limit: 50, ip: parseIpSearch("10.") })).conversions.map((c) => c.id);
    expect(new Set(ids).size).toBe(50);
    expect(Math.max(...ids)).toBeLessThanOrEqual(BULK);
    expect(sqliteDb(storage).prepare("SELECT count(*) FROM open_bulks").pluck().get()).toBe(0);
  });

  it("sends a bulk's rows to the writer thread once: the piece after a stop only names the bulk", async () => {
    const project = await newProject();
    const dialect = (storage as SqlStorage<SqliteDialect>).dialect;
    const seq = sqliteDb(storage).prepare("SELECT seq FROM projects WHERE id = ?").pluck().get(project.id) as number;
    // the thread holds no rows for a bulk it does not know
    const unknown = { project: seq, period: PERIOD, limit: null, piece: { bulk: 1_000_000, rows: BULK, seq: 101 } };
    expect(await dialect.resumeBulk(unknown)).toBeNull();
    const resumed: unknown[] = [];
    const resume = dialect.resumeBulk.bind(dialect);
    dialect.resumeBulk = async (batch) => {
      const result = await resume(batch);
      resumed.push(result && { ...result, again: await resume(batch) });
      return result;
    };
    let single: Promise<CommitResult> | undefined;
    hook.arm(() => (single = commit(project.id, [sampleConversion("192.0.2.2")])));
    try {
      expect(await commit(project.id)).toEqual({ accepted: true, used: BULK + 1 });
    } finally {
      dialect.resumeBulk = resume;
    }
    expect(await single).toEqual({ accepted: true, used: 1 });
    // the rest went on from the rows the thread kept; once written, they are kept no longer
    expect(resumed).toEqual([{ accepted: true, used: BULK + 1, written: BULK - 100, again: null }]);
    const seqs = sqliteDb(storage).prepare("SELECT seq FROM conversions WHERE project = ? ORDER BY id").pluck().all(seq) as number[];
    expect(seqs).toEqual([...Array.from({ length: 100 }, (_, i) => i + 1), BULK + 1, ...Array.from({ length: BULK - 100 }, (_, i) => i + 101)]);
  });

  it("keeps an open bulk out of every read and holds its whole quota from the first piece", async () => {
    const project = await newProject();
    const dialect = (storage as SqlStorage<SqliteDialect>).dialect;
    const seq = sqliteDb(storage).prepare("SELECT seq FROM projects WHERE id = ?").pluck().get(project.id) as number;
    const plan = ipSearchPlan(parseIpSearch("10."))!;
    let single: Promise<CommitResult> | undefined;
    hook.arm(() => (single = commit(project.id, [sampleConversion()], BULK)));
    const seen: Array<Promise<unknown>> = [];
    let first = true;
    const stop = observeGroupCommits((group) => {
      if (!first || group.weight < 100) return;
      first = false;
      // The first piece is in the file, yet every read leaves it out and nothing is counted.
      // (The dialect's reads run synchronously here, before anything else is written.)
      seen.push(
        Promise.resolve(sqliteDb(storage).prepare("SELECT count(*) FROM conversions WHERE project = ?").pluck().get(seq)),
        dialect.countConversions(seq, plan),
        dialect.listPage(seq, { kind: "walk", filter: null }, 50, 0).then((rows) => rows.length),
        dialect.listPage(seq, { kind: "walk", filter: { key: plan.scans[0]!.key! } }, 50, 0).then((rows) => rows.length),
        dialect.listPage(seq, { kind: "matches", plan }, 50, 0).then((rows) => rows.length),
      );
    });
    try {
      expect(await commit(project.id, bulkOf(BULK), BULK)).toEqual({ accepted: true, used: BULK });
    } finally {
      stop();
    }
    expect(await Promise.all(seen)).toEqual([100, { projectRows: 0, matches: 0 }, 0, 0, 0]);
    // the one row would have fitted beside what was stored, not beside what the bulk held
    expect(await single).toEqual({ accepted: false, used: 0 });
    expect((await storage.listConversions({ projectId: project.id, offset: 0, limit: 10, ip: parseIpSearch("10.") })).totalCount).toBe(BULK);
    expect(await storage.usage(project.id, PERIOD)).toBe(BULK);
  });

  it("refuses a bulk that does not fit, storing and counting nothing", async () => {
    const project = await newProject();
    expect(await commit(project.id, bulkOf(BULK), BULK - 1)).toEqual({ accepted: false, used: 0 });
    expect((await storage.listConversions({ projectId: project.id, offset: 0, limit: 10 })).totalCount).toBe(0);
    expect(sqliteDb(storage).prepare("SELECT count(*) FROM conversions c JOIN projects p ON p.seq = c.project WHERE p.id = ?").pluck().get(project.id)).toBe(0);
    expect(await storage.usage(project.id, PERIOD)).toBe(0);
  });
});

/** a SQLite storage of its own for `run`, closed and removed after it */
async function withOwnStorage(options: Partial<Parameters<typeof createStorage>[0]>, run: (storage: Storage) => Promise<void>): Promise<void> {
  const backend = await createBackend("sqlite");
  const storage = await createStorage({ ...backend.storageOptions(), ...options });
  try {
    await run(storage);
  } finally {
    await storage.close();
    await backend.dispose();
  }
}

describe.each([false, true])("a bulk that nothing waits for (writer thread: %s)", (writerThread) => {
  it("is one transaction", () =>
    withOwnStorage({ sqliteWriterThread: writerThread }, async (storage) => {
      const project = await storage.createProject({ name: "alone", plan: "scale" });
      const { result, groups } = await bulkGroups(() => storage.commitConversions({ projectId: project.id, period: PERIOD, limit: null, conversions: bulkOf(BULK) }));
      expect(result).toEqual({ accepted: true, used: BULK });
      expect(groups).toEqual([BULK]);
      expect((await storage.listConversions({ projectId: project.id, offset: 0, limit: 1 })).conversions[0]!.id).toBe(BULK);
    }));
});

describe("a light commit during a bulk, one server (no write turn)", () => {
  it("goes to the writer thread beside the bulk, new parts and all, and is answered before it", async () => {
    const backend = await createBackend("sqlite");
    const storage = await createStorage({ ...backend.storageOptions(), sqliteWriterThread: true });
    try {
      const project = await storage.createProject({ name: "beside", plan: "scale" });
      const writer = (storage as SqlStorage<SqliteDialect>).dialect["writer"]!;
      // what the thread is asked to write, by rows (observed, not changed)
      const sent: number[] = [];
      const write = writer.writeConversions.bind(writer);
      writer.writeConversions = (group, onSent) => (sent.push(group.rows.project.length), write(group, onSent));
      const order: string[] = [];
      const bulk = storage.commitConversions({ projectId: project.id, period: PERIOD, limit: null, conversions: bulkOf(BULK) }).then((r) => (order.push("bulk"), r));
      // the bulk's parts or rows are on the thread
      for (let turns = 0; !writer.busy && turns < 10_000; turns++) await new Promise((r) => setImmediate(r));
      expect(writer.busy).toBe(true);
      // a location no row has yet: its part is saved in the light group's own transaction, on the thread
      const single = storage.commitConversions({ projectId: project.id, period: PERIOD, limit: null, conversions: [sampleConversion("192.0.2.9", 1_000_003)] }).then((r) => (order.push("single"), r));
      expect(await single).toEqual({ accepted: true, used: expect.any(Number) });
      expect(await bulk).toEqual({ accepted: true, used: BULK + 1 });
      expect(order).toEqual(["single", "bulk"]);
      expect(sent).toContain(1);
      const found = await storage.listConversions({ projectId: project.id, offset: 0, limit: 50, ip: parseIpSearch("192.0.2.9") });
      expect(found.conversions.map((c) => c.data.continent?.country?.geoname_id)).toEqual([2635167 + 1_000_003]);
      expect((await storage.listConversions({ projectId: project.id, offset: 0, limit: 1 })).totalCount).toBe(BULK + 1);
      expect(sqliteDb(storage).prepare("SELECT count(*) FROM open_bulks").pluck().get()).toBe(0);
    } finally {
      await storage.close();
      await backend.dispose();
    }
  });
});

describe("a bulk under --workers", () => {
  it("makes way when the write turn says another process's light rows wait; it asks for the turn as light or heavy", async () => {
    let tellLightWaiting = () => {};
    let armed = false;
    const takes: boolean[] = [];
    // what server-group.ts does for a worker: the primary tells the holder that another worker's GET waits
    const writeTurn: WriteTurn = {
      take: async (light) => {
        takes.push(light);
        if (armed) (armed = false), tellLightWaiting();
      },
      release: () => {},
      onLightWaiting: (listener) => (tellLightWaiting = listener),
    };
    await withOwnStorage({ sqliteWriterThread: true, writeTurn }, async (storage) => {
      const project = await storage.createProject({ name: "workers", plan: "scale" });
      const commit = (conversions: ReturnType<typeof bulkOf>) => storage.commitConversions({ projectId: project.id, period: PERIOD, limit: null, conversions });
      await commit([sampleConversion("192.0.2.3")]);
      expect(takes.length).toBeGreaterThan(0);
      expect(takes.every((light) => light)).toBe(true);
      takes.length = 0;
      armed = true;
      const { result, groups } = await bulkGroups(() => commit(bulkOf(BULK)));
      expect(result).toEqual({ accepted: true, used: BULK + 1 });
      expect(groups).toEqual([100, BULK - 100]);
      expect(takes.length).toBeGreaterThanOrEqual(2);
      expect(takes.every((light) => !light)).toBe(true);
    });
  });
});

describe("a bulk whose server died between two pieces", () => {
  it("is removed, rows and held quota, when the file is next opened; what was committed before stays", async () => {
    const backend = await createBackend("sqlite");
    const options = backend.storageOptions();
    const setup = await createStorage(options);
    const project = await setup.createProject({ name: "crash", plan: "scale" });
    await setup.close();
    // A server that stores one row, then starts a bulk, lets a one-row request go ahead of the
    // bulk's second piece, and is killed right after the first piece committed.
    const module = (path: string) => JSON.stringify(new URL(path, import.meta.url).href);
    const script = `
      import { createStorage } from ${module("../index.ts")};
      import { observeGroupCommits } from ${module("../group-commit.ts")};
      import { sampleConversion } from ${module("../../../test/helpers/sample-conversions.ts")};
      let armed = false;
      const writeTurn = { take: async () => { if (armed) { armed = false; void commit([sampleConversion("192.0.2.8")]); await new Promise((r) => setImmediate(r)); } }, release() {} };
      const storage = await createStorage({ ...${JSON.stringify(options)}, sqliteWriterThread: true, writeTurn });
      const commit = (conversions) => storage.commitConversions({ projectId: ${JSON.stringify(project.id)}, period: "${PERIOD}", limit: null, conversions });
      await commit([sampleConversion("192.0.2.7")]);
      observeGroupCommits((group) => { if (group.weight >= 100) process.kill(process.pid, "SIGKILL"); });
      armed = true;
      await commit(Array.from({ length: ${BULK} }, () => sampleConversion()));
      console.log("the bulk was not interrupted");
    `;
    expect(() => execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { stdio: "pipe" })).toThrow(/SIGKILL/);

    const reopened = await createStorage(options);
    try {
      const db = sqliteDb(reopened);
      expect(db.prepare("SELECT count(*) FROM conversions").pluck().get()).toBe(1);
      expect(db.prepare("SELECT count(*) FROM open_bulks").pluck().get()).toBe(0);
      expect(await reopened.usage(project.id, PERIOD)).toBe(1);
      const page = await reopened.listConversions({ projectId: project.id, offset: 0, limit: 10 });
      expect(page.conversions.map((c) => c.data.ip)).toEqual(["192.0.2.7"]);
    } finally {
      await reopened.close();
      await backend.dispose();
    }
  });
});
