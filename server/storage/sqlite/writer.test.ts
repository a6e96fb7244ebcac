import { randomUUID } from "node:crypto";
import { statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bareIpObject } from "../../../lib/schemas/ip-object.js";
import { makeDataDir } from "../../../test/helpers/server.js";
import { sampleConversion } from "../../../test/helpers/sample-conversions.js";
import { emptyColumns, NUMBER_COLUMNS } from "../dialect.js";
import { createStorage } from "../index.js";
import type { SqlStorage } from "../sql-storage.js";
import type { NewConversion } from "../types.js";
import { CHECKPOINT_EVERY_MS, checkpointWholeWal, connectSqlite, SQLITE_FILE, uuidToBlob, type SqliteDialect, type WalCheckpoint } from "./dialect.js";
import { uuidText, writeUuidBytes } from "../uuid-bytes.js";
import { packGroup, transferList, unpackGroup } from "./writer.js";

describe("a group packed for the writer thread", () => {
  it("comes back column for column, nulls and ip keys of both lengths included", () => {
    const rows = emptyColumns();
    const add = (ip: string | null, key: number[] | null, tz: number | null, us: number | null, extra: string | null) => {
      rows.project.push(7);
      rows.unique_id.push(`0000000${rows.project.length}-0000-4000-8000-000000000000`);
      rows.status.push(key ? 0 : 2);
      rows.ip.push(ip);
      rows.ip_key.push(key && Uint8Array.from(key));
      rows.started_at.push(1_795_000_000_123);
      rows.completed_ms.push(3);
      rows.created_ms.push(-2);
      rows.location.push(41);
      rows.network.push(42);
      rows.tz_offset.push(tz);
      rows.time_shift.push(-1);
      rows.completion_us.push(us);
      rows.extra.push(extra);
      rows.seq.push(0);
    };
    add("8.8.8.8", [4, 8, 8, 8, 8], -300, 1234, null);
    add("2001:db8::1", [6, 0x20, 1, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], 345, null, '{"t":null}');
    add("not an ip", null, null, null, '{"i":"Not An IP"}');
    const batches = [{ project: 7, period: "2026-11", limit: null, start: 0, end: 3 }];
    const packed = packGroup({ batches, rows });
    // what crosses the boundary, as the thread receives it
    const received = structuredClone(packed, { transfer: transferList(packed) });
    const { batches: back, rows: unpacked } = unpackGroup(received);
    expect(back).toEqual(batches);
    // the numbers come as Float64Array views, null as NaN (SQLite binds NaN as NULL); the ids as their bytes
    const numbers = Object.fromEntries(NUMBER_COLUMNS.map((name) => [name, Array.from(unpacked[name] as Float64Array, (n) => (Number.isNaN(n) ? null : n))]));
    expect({
      ...unpacked,
      ...numbers,
      ip_key: unpacked.ip_key.map((key) => key && [...key]),
      unique_id: Array.from(unpacked.unique_id as Uint8Array[], (id) => uuidText(id)),
    }).toEqual({
      ...rows,
      ip_key: rows.ip_key.map((key) => key && [...key]),
    });
  });
});

describe("a conversion id's bytes", () => {
  it("are its hex digits in order, in either case, with or without dashes", () => {
    for (let i = 0; i < 200; i++) {
      const uuid = randomUUID();
      const hex = uuid.replaceAll("-", "");
      const expected = [...Buffer.from(hex, "hex")];
      for (const text of [uuid, uuid.toUpperCase(), hex]) {
        const out = new Uint8Array(20);
        writeUuidBytes(text, out, 3);
        expect([...out.subarray(3, 19)]).toEqual(expected);
        expect([...uuidToBlob(text)]).toEqual(expected);
      }
      expect(uuidText(uuidToBlob(uuid))).toBe(uuid);
    }
  });
});

describe("the writer thread", () => {
  it("writes commits; once it stops, later commits are written on the main connection", async () => {
    const storage = (await createStorage({ dataDir: makeDataDir(), sqliteWriterThread: true })) as SqlStorage<SqliteDialect>;
    try {
      const project = await storage.createProject({ name: "w", plan: "scale" });
      // groups of more than 100 rows go to the thread
      const rows = () => Array.from({ length: 150 }, () => sampleConversion());
      const commit = (conversions: NewConversion[]) =>
        storage.commitConversions({ projectId: project.id, period: "2026-11", limit: null, conversions });
      const before = rows();
      expect(await commit(before)).toEqual({ accepted: true, used: 150 });
      expect((await storage.getConversion(project.id, before[149]!.uniqueId))?.id).toBe(150);
      await storage.dialect["writer"]!["thread"]["worker"].terminate();
      const after = rows();
      expect(await commit(after)).toEqual({ accepted: true, used: 300 });
      expect((await storage.getConversion(project.id, after[0]!.uniqueId))?.id).toBe(151);
    } finally {
      await storage.close();
    }
  });

  it("stores a group exactly as given, the nulls of invalid and failed conversions included", async () => {
    const storage = (await createStorage({ dataDir: makeDataDir(), sqliteWriterThread: true })) as SqlStorage<SqliteDialect>;
    try {
      const project = await storage.createProject({ name: "w", plan: "scale" });
      const startedAt = Date.now();
      // more than 100 rows: the group goes to the thread, its numbers as a Float64Array with nulls as NaN
      const conversions: NewConversion[] = Array.from({ length: 150 }, (_, i) =>
        i % 3 === 1
          ? { uniqueId: randomUUID(), status: "invalid-ip-address", data: bareIpObject(`not an ip ${i}`, null), startedAt, completedAt: startedAt }
          : i % 3 === 2
            ? { uniqueId: randomUUID(), status: "failed", data: bareIpObject("1.1.1.1", "ipv4"), startedAt, completedAt: startedAt + 2 }
            : sampleConversion(i % 2 ? "2001:db8::5" : "8.8.8.8", i % 4),
      );
      expect(await storage.commitConversions({ projectId: project.id, period: "2026-11", limit: null, conversions })).toEqual({ accepted: true, used: 150 });
      for (const [i, c] of conversions.entries()) {
        const stored = await storage.getConversion(project.id, c.uniqueId);
        expect(stored?.id).toBe(i + 1);
        expect(stored?.status).toBe(c.status);
        expect(stored?.data).toStrictEqual(c.data);
        expect(stored?.completedAt).toBe(new Date(c.completedAt).toISOString());
      }
    } finally {
      await storage.close();
    }
  });

  it("a bulk's new parts are saved before its rows' transaction: rows that fail to write leave them saved", async () => {
    const storage = (await createStorage({ dataDir: makeDataDir(), sqliteWriterThread: true })) as SqlStorage<SqliteDialect>;
    const count = (table: string) => storage.dialect["db"].prepare(`SELECT count(*) FROM ${table}`).pluck().get();
    try {
      const project = await storage.createProject({ name: "p", plan: "scale" });
      // a bulk (over 1000 rows): its new parts are saved first (SqlStorage.writeGroup); a repeated id fails the rows
      const conversions = Array.from({ length: 1200 }, (_, i) => sampleConversion(`81.2.${i >> 8}.${i & 255}`, i % 4));
      conversions[1] = { ...conversions[1]!, uniqueId: conversions[0]!.uniqueId };
      await expect(storage.commitConversions({ projectId: project.id, period: "2026-11", limit: null, conversions })).rejects.toThrow(/UNIQUE/);
      expect(count("conversions")).toBe(0);
      expect(count("locations")).toBeGreaterThan(0);
      expect(count("networks")).toBeGreaterThan(0);
      // the parts' ids are known now: the same rows, ids fixed, point at them
      conversions[1] = { ...conversions[1]!, uniqueId: randomUUID() };
      expect(await storage.commitConversions({ projectId: project.id, period: "2026-11", limit: null, conversions })).toEqual({ accepted: true, used: 1200 });
      for (const c of [conversions[0]!, conversions[1199]!]) expect((await storage.getConversion(project.id, c.uniqueId))?.data).toStrictEqual(c.data);
    } finally {
      await storage.close();
    }
  });

  it("checkpoints the WAL on its timer; the main connection neither checkpoints nor cuts it, until the thread stops", async () => {
    const dataDir = makeDataDir();
    const storage = (await createStorage({ dataDir, sqliteWriterThread: true })) as SqlStorage<SqliteDialect>;
    const db = storage.dialect["db"];
    const fileSize = () => statSync(join(dataDir, SQLITE_FILE)).size;
    try {
      expect(db.pragma("wal_autocheckpoint", { simple: true })).toBe(0);
      // nor cuts the WAL file in a commit: the thread does when idle
      expect(db.pragma("journal_size_limit", { simple: true })).toBe(-1);
      const project = await storage.createProject({ name: "c", plan: "scale" });
      const commit = () =>
        storage.commitConversions({ projectId: project.id, period: "2026-11", limit: null, conversions: Array.from({ length: 20 }, () => sampleConversion()) });
      // small groups are written on the main connection: their pages stay in the WAL
      const before = fileSize();
      for (let i = 0; i < 50; i++) await commit();
      expect(fileSize()).toBe(before);
      // the thread's timer copies them into the database file
      await new Promise((resolve) => setTimeout(resolve, CHECKPOINT_EVERY_MS * 2.5));
      expect(fileSize()).toBeGreaterThan(before);
      await storage.dialect["writer"]!["thread"]["worker"].terminate();
      await commit();
      expect(db.pragma("wal_autocheckpoint", { simple: true })).toBe(1000);
      expect(db.pragma("journal_size_limit", { simple: true })).toBe(64 * 1024 * 1024);
    } finally {
      await storage.close();
    }
  });
});

describe("the writer thread's checkpoints", () => {
  /** the event loop's connection, which commits, and the thread's, which checkpoints */
  const openTwo = async () => {
    const dataDir = makeDataDir();
    const storage = (await createStorage({ dataDir, sqliteWriterThread: false })) as SqlStorage<SqliteDialect>;
    const db = storage.dialect["db"];
    const checkpointer = connectSqlite({ dataDir, autocheckpoint: false });
    const bump = db.prepare("UPDATE change_counter SET version = version + 1 WHERE id = 1");
    return {
      commit: () => bump.run(),
      /** a commit that lands while the checkpoint copies: its transaction begins before, its write after */
      checkpointDuringCommit: (): WalCheckpoint => {
        db.exec("BEGIN");
        db.prepare("SELECT version FROM change_counter").get();
        try {
          return checkpointer.checkpoint();
        } finally {
          bump.run();
          db.exec("COMMIT");
        }
      },
      checkpoint: () => checkpointer.checkpoint(),
      turn: (limitBytes: number, stepBytes?: number) => checkpointer.checkpointTurn(limitBytes, stepBytes),
      version: () => db.prepare("SELECT version FROM change_counter").pluck().get(),
      walBytes: () => statSync(join(dataDir, `${SQLITE_FILE}-wal`)).size,
      close: async () => {
        await checkpointer.close();
        await storage.close();
      },
    };
  };

  it("copy again while commits land, until the next commit writes the WAL from its start", async () => {
    const wal = await openTwo();
    try {
      for (let i = 0; i < 20; i++) wal.commit();
      // one checkpoint with a commit landing as it copies: the next commits add to the WAL's end
      wal.checkpointDuringCommit();
      let before = wal.walBytes();
      wal.commit();
      expect(wal.walBytes()).toBeGreaterThan(before);

      let rounds = 0;
      const frames = checkpointWholeWal(() => (++rounds <= 3 ? wal.checkpointDuringCommit() : wal.checkpoint()));
      expect(frames).toBeGreaterThan(0);
      // three rounds with a commit landing, one for the last commit, one that finds nothing new
      expect(rounds).toBe(5);
      before = wal.walBytes();
      wal.commit();
      wal.commit();
      expect(wal.walBytes()).toBe(before);
      expect(wal.version()).toBe(27);
    } finally {
      await wal.close();
    }
  });

  it("stop after their rounds when commits never pause", async () => {
    const wal = await openTwo();
    try {
      let rounds = 0;
      const frames = checkpointWholeWal(() => {
        rounds++;
        return wal.checkpointDuringCommit();
      }, 4);
      expect([frames, rounds]).toEqual([null, 4]);
    } finally {
      await wal.close();
    }
  });

  it("leave the WAL to a connection already checkpointing it", () => {
    // what SQLite answers a PASSIVE checkpoint while another connection's runs
    let rounds = 0;
    const frames = checkpointWholeWal(() => (rounds++, { busy: 1, log: -1, checkpointed: -1 }));
    expect([frames, rounds]).toEqual([null, 1]);
  });

  it("cut a WAL file grown past its limit back, a step each turn that follows a turn without a commit, to nothing", async () => {
    const wal = await openTwo();
    const limit = 64 * 1024;
    const step = 96 * 1024;
    // what a WAL holding one page (the cut's own commit) measures: its header and one frame
    const onePage = 32 + 24 + 4096;
    try {
      for (let i = 0; i < 100; i++) wal.commit();
      const grown = wal.walBytes();
      expect(grown).toBeGreaterThan(limit + 2 * step);
      // the thread's first turn, and one after a commit: the server may be busy
      wal.turn(limit, step);
      wal.commit();
      wal.turn(limit, step);
      expect(wal.walBytes()).toBeGreaterThanOrEqual(grown);
      // a turn after a turn without commits cuts one step, and each idle turn after it one more
      wal.turn(limit, step);
      expect(wal.walBytes()).toBe(grown - step);
      wal.turn(limit, step);
      expect(wal.walBytes()).toBe(grown - 2 * step);
      // a commit between two steps: the turn after it waits, and the cut goes on below the limit
      wal.commit();
      wal.turn(limit, step);
      expect(wal.walBytes()).toBe(grown - 2 * step);
      const turns = Math.ceil(grown / step);
      for (let i = 0; i < turns && wal.walBytes() > onePage; i++) wal.turn(limit, step);
      expect(wal.walBytes()).toBe(onePage);
      // nothing lost: 101 commits before and one now
      wal.commit();
      expect(wal.version()).toBe(103);
      // under its limit, the file stays as it is
      const kept = wal.walBytes();
      for (let i = 0; i < 3; i++) wal.turn(1024 * 1024, step);
      expect(wal.walBytes()).toBe(kept);
      expect(kept).toBeGreaterThan(0);
    } finally {
      await wal.close();
    }
  });
});
