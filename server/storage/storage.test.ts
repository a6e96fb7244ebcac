/**
 * The Storage contract, straight on createStorage, against every backend (SQLite always,
 * PostgreSQL when TEST_DATABASE_URL is set; see test/helpers/backends.ts).
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bareIpObject } from "../../lib/schemas/ip-object.js";
import { adminQuery, backendNames, createBackend, serverAutovacuumOff, type Backend } from "../../test/helpers/backends.js";
import { parseIp } from "../../lib/ip/parse.js";
import { parseIpSearch } from "./ip-bytes.js";
import { conversionDataJson, createStorage, openDialect, type StorageOptions } from "./index.js";
import { preferIpIndex, SqlStorage } from "./sql-storage.js";
import { newPartToken } from "../geo/engine/part-tokens.js";
import { SAMPLE_VARIANTS, sampleConversion } from "../../test/helpers/sample-conversions.js";
import type { NewConversion, Storage } from "./types.js";

const PERIOD = "2026-11";

/** each backend, and SQLite once more with its writes on the writer thread */
const variants = [...backendNames.map((name) => ({ name, writerThread: false })), { name: "sqlite" as const, writerThread: true }];

describe.each(variants)("storage on $name (writer thread: $writerThread)", ({ name, writerThread }) => {
  let backend: Backend;
  let storage: Storage;
  /** one database: a second createStorage with these options opens the same rows */
  let options: StorageOptions;

  beforeAll(async () => {
    backend = await createBackend(name);
    options = { ...backend.storageOptions(), sqliteWriterThread: writerThread };
    storage = await createStorage(options);
  });
  afterAll(async () => {
    await storage?.close();
    await backend?.dispose();
  });

  const newProject = (plan: "free" | "scale" = "scale") => storage.createProject({ name: `p-${randomUUID()}`, plan });
  const commit = (projectId: string, conversions: NewConversion[], limit: number | null = null) =>
    storage.commitConversions({ projectId, period: PERIOD, limit, conversions });

  it("migrations run once: opening the same database again keeps the rows", async () => {
    const project = await newProject();
    await storage.migrate();
    const again = await createStorage(options);
    try {
      expect(await again.getProject(project.id)).toEqual(project);
    } finally {
      await again.close();
    }
  });

  it("keeps its map of part ids bounded: past the bound it starts afresh, and rows still point at their own parts", async () => {
    const small = new SqlStorage(await openDialect(options), { partIdsMax: 4 });
    try {
      const project = await small.createProject({ name: `p-${randomUUID()}`, plan: "scale" });
      // parts met through new tokens, as after the engine made its tokens again: the second set
      // makes the map forget the first, whose parts the third round saves again and finds, and
      // the fourth takes from the map
      const round = (first: number) =>
        Array.from({ length: 10 }, (_, i) => ({ ...sampleConversion(undefined, first + i), parts: { location: newPartToken(), network: newPartToken() } }));
      for (const conversions of [round(0), round(10), round(0), round(0)]) {
        expect(await small.commitConversions({ projectId: project.id, period: PERIOD, limit: null, conversions })).toMatchObject({ accepted: true });
        for (const c of conversions) expect((await small.getConversion(project.id, c.uniqueId))?.data).toStrictEqual(c.data);
      }
    } finally {
      await small.close();
    }
  });

  it("upkeepWarnings: none on SQLite; on PostgreSQL one exactly while autovacuum is off, for the server or the conversions table", async () => {
    if (name === "sqlite") return void expect(await storage.upkeepWarnings()).toEqual([]);
    const table = `${options.schema}.conversions`;
    const serverOff = await serverAutovacuumOff();
    const serverWarning = expect.stringMatching(/^PostgreSQL's autovacuum is off: .*VACUUM ANALYZE conversions/);
    expect(await storage.upkeepWarnings()).toEqual(serverOff ? [serverWarning] : []);
    await adminQuery(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
    try {
      expect(await storage.upkeepWarnings()).toEqual([expect.stringMatching(/^autovacuum is off for the conversions table: /)]);
    } finally {
      await adminQuery(`ALTER TABLE ${table} RESET (autovacuum_enabled)`);
    }
    expect(await storage.upkeepWarnings()).toEqual(serverOff ? [serverWarning] : []);
  });

  it("projects, keys and websites; every change moves changeVersion", async () => {
    const v0 = await storage.changeVersion();
    const project = await newProject();
    expect(project.plan).toBe("scale");
    expect(await storage.changeVersion()).toBeGreaterThan(v0);
    expect((await storage.listProjects()).map((p) => p.id)).toContain(project.id);

    const hash = `h-${randomUUID()}`;
    const key = await storage.createKey({ projectId: project.id, name: "default", kind: "secret", hash, prefix: "ipa_sk_Ab" });
    const auth = await storage.findKeyByHash(hash);
    expect(auth?.key.id).toBe(key.id);
    expect(auth?.project.id).toBe(project.id);
    expect(auth?.website).toBeNull();

    const v1 = await storage.changeVersion();
    const newHash = `h-${randomUUID()}`;
    const rolled = await storage.rollKey(key.id, newHash, "ipa_sk_Cd");
    expect(rolled?.prefix).toBe("ipa_sk_Cd");
    expect(await storage.changeVersion()).toBeGreaterThan(v1);
    expect(await storage.findKeyByHash(newHash)).not.toBeNull();
    expect(await storage.findKeyByHash(hash)).toBeNull();

    const v2 = await storage.changeVersion();
    expect((await storage.revokeKey(key.id))?.revokedAt).not.toBeNull();
    expect(await storage.changeVersion()).toBeGreaterThan(v2);
    expect(await storage.findKeyByHash(newHash)).toBeNull();
    expect(await storage.revokeKey(key.id)).toBeNull();

    const website = await storage.createWebsite({ projectId: project.id, origin: "example.com" });
    // listKeys orders by creation time (then id): two keys made in one millisecond have no order
    await new Promise((resolve) => setTimeout(resolve, 2));
    const publicHash = `h-${randomUUID()}`;
    const publicKey = await storage.createKey({ projectId: project.id, name: "example.com", kind: "public", hash: publicHash, prefix: "ipa_pk_X", websiteId: website.id });
    expect((await storage.findKeyByHash(publicHash))?.website).toEqual(website);
    expect(await storage.listWebsites(project.id)).toEqual([website]);
    expect((await storage.listKeys(project.id)).map((k) => k.id)).toEqual([key.id, publicKey.id]);

    await storage.touchKeys([{ keyId: publicKey.id, at: Date.parse("2026-11-22T01:00:00.000Z") }]);
    expect((await storage.getKey(publicKey.id))?.lastUsedAt).toBe("2026-11-22T01:00:00.000Z");

    expect(await storage.removeWebsite(website.id)).toEqual(website);
    expect(await storage.findKeyByHash(publicHash)).toBeNull();
    expect(await storage.listWebsites(project.id)).toEqual([]);
    expect(await storage.removeWebsite(website.id)).toBeNull();

    expect((await storage.setPlan(project.id, "free"))?.plan).toBe("free");
    expect(await storage.setPlan(randomUUID(), "free")).toBeNull();
  });

  it("stores conversions exactly and reads them back by id, in request order", async () => {
    const project = await newProject();
    const other = await newProject();
    const startedAt = Date.now();
    const conversions: NewConversion[] = [
      sampleConversion("8.8.8.8", 1),
      sampleConversion("2001:db8::5", 2),
      { uniqueId: randomUUID(), status: "invalid-ip-address", data: bareIpObject("Not An IP", null), startedAt, completedAt: startedAt },
      { uniqueId: randomUUID(), status: "failed", data: bareIpObject("1.1.1.1", "ipv4"), startedAt, completedAt: startedAt + 2 },
    ];
    expect(await commit(project.id, conversions)).toEqual({ accepted: true, used: 4 });

    for (const c of conversions) {
      const stored = await storage.getConversion(project.id, c.uniqueId);
      // the text the conversion routes answer with, written from the stored parts without decoding them
      expect(conversionDataJson(stored!)).toBe(JSON.stringify(c.data));
      expect(stored?.data).toStrictEqual(c.data);
      expect(stored?.status).toBe(c.status);
      expect(stored?.startedAt).toBe(new Date(c.startedAt).toISOString());
      expect(stored?.completedAt).toBe(new Date(c.completedAt).toISOString());
      expect(Date.parse(stored!.createdAt)).toBeGreaterThanOrEqual(c.startedAt);
      expect(await storage.getConversion(other.id, c.uniqueId)).toBeNull();
    }
    // the same parts again: their ids now come from the cache the first write filled
    const again = conversions.map((c) => ({ ...c, uniqueId: randomUUID() }));
    expect(await commit(project.id, again)).toEqual({ accepted: true, used: 8 });
    for (const c of again) expect((await storage.getConversion(project.id, c.uniqueId))?.data).toStrictEqual(c.data);
    const ids = [conversions[2]!.uniqueId, randomUUID(), conversions[0]!.uniqueId.toUpperCase(), conversions[2]!.uniqueId];
    const many = await storage.getConversions(project.id, ids);
    expect(many.map((c) => c.uniqueId)).toEqual([conversions[2]!.uniqueId, conversions[0]!.uniqueId]);
    expect(await storage.getConversions(other.id, ids)).toEqual([]);
  });

  it("reports what waits in its queues: lists beyond its readers wait their turn; nothing once all is done", async () => {
    // SQLite's lists read off the event loop, as the server reads them (without the reader thread they are read at once)
    const reading = await createStorage({ ...options, sqliteReaderThread: true });
    try {
      const project = await reading.createProject({ name: `p-${randomUUID()}`, plan: "scale" });
      await reading.commitConversions({ projectId: project.id, period: PERIOD, limit: null, conversions: ["8.8.8.8", "1.1.1.1"].map((ip) => sampleConversion(ip)) });
      expect(reading.waiting()).toEqual({ writeRows: 0, lists: 0 });
      // the reader thread (SQLite) or the pool's share for lists (PostgreSQL) reads a few at once; the rest wait
      const lists = Array.from({ length: 24 }, () => reading.listConversions({ projectId: project.id, offset: 0, limit: 50 }));
      let settled = false;
      void Promise.all(lists).finally(() => (settled = true));
      let mostWaiting = 0;
      while (!settled) {
        mostWaiting = Math.max(mostWaiting, reading.waiting().lists);
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(mostWaiting).toBeGreaterThan(0);
      expect((await Promise.all(lists)).every((list) => list.totalCount === 2)).toBe(true);
      expect(reading.waiting()).toEqual({ writeRows: 0, lists: 0 });
    } finally {
      await reading.close();
    }
  });

  it("lists newest first with offset, totalCount and ipSearch by prefix and CIDR", async () => {
    const project = await newProject();
    const ips = ["10.1.2.3", "10.1.9.9", "10.2.0.1", "192.168.0.1", "2001:db8::1", "2001:db9::1", "::ffff:10.1.2.3", "HELLO"];
    for (const ip of ips) {
      const conversion = sampleConversion(ip);
      if (ip === "HELLO") Object.assign(conversion, { status: "invalid-ip-address", data: bareIpObject(ip, null) });
      await commit(project.id, [conversion]);
    }
    const all = await storage.listConversions({ projectId: project.id, offset: 0, limit: 50 });
    expect(all.totalCount).toBe(ips.length);
    expect(all.conversions.map((c) => c.data.ip)).toEqual([...ips].reverse());

    const page = await storage.listConversions({ projectId: project.id, offset: 2, limit: 3 });
    expect(page.conversions.map((c) => c.data.ip)).toEqual([...ips].reverse().slice(2, 5));
    expect(page.totalCount).toBe(ips.length);

    const search = async (text: string) => {
      const result = await storage.listConversions({ projectId: project.id, offset: 0, limit: 50, ip: parseIpSearch(text) });
      expect(result.totalCount).toBe(result.conversions.length);
      return result.conversions.map((c) => c.data.ip);
    };
    expect(await search("10.1.")).toEqual(["10.1.9.9", "10.1.2.3"]);
    expect(await search("hel")).toEqual(["HELLO"]);
    expect(await search("2001:DB8")).toEqual(["2001:db8::1"]);
    expect(await search("10.0.0.0/8")).toEqual(["10.2.0.1", "10.1.9.9", "10.1.2.3"]);
    expect(await search("10.1.0.0/16")).toEqual(["10.1.9.9", "10.1.2.3"]);
    expect(await search("2001:db8::/32")).toEqual(["2001:db8::1"]);
    expect(await search("::ffff:0:0/96")).toEqual(["::ffff:10.1.2.3"]);
    expect(await search("0.0.0.0/0")).toHaveLength(4);
    expect(await search("172.16.0.0/12")).toEqual([]);
    expect(await search("zzz")).toEqual([]);
  });

  it("ipSearch by prefix equals brute force on every address shape, on both plans, at any offset", async () => {
    const project = await newProject();
    let seed = 7;
    const int = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const octet = () => [0, 1, 10, 19, 100, 199, 255, int(256)][int(8)]!;
    const group = () => (int(3) === 0 ? 0 : [1, 0xf, 0x10, 0xff, 0x100, 0x1000, 0xffff, int(0x10000)][int(8)]!);
    const inputs: string[] = [];
    for (let i = 0; i < 240; i++) {
      const shape = i % 4;
      if (shape === 0) inputs.push([octet(), octet(), octet(), octet()].join("."));
      else if (shape === 1) inputs.push(`::ffff:${[octet(), octet(), octet(), octet()].join(".")}`);
      else inputs.push(Array.from({ length: 8 }, group).map((g) => g.toString(16)).join(":"));
    }
    inputs.push("10.1.2.04", "Hello 10.1", "::FFFF:1.2.3.4 x", "1:2:3", "fe80::1%eth0", "::");
    const stored = inputs.map((input) => {
      const parsed = parseIp(input);
      const conversion = sampleConversion(parsed?.ip ?? input);
      if (!parsed) Object.assign(conversion, { status: "invalid-ip-address", data: bareIpObject(input, null) });
      return conversion;
    });
    await commit(project.id, stored);
    const newestFirst = [...stored].reverse();

    const prefixes = new Set(["1", "10.1", "::", "::f", "::ffff:", "::ffff:1", ":", "0:", "1:", "f", "ff", "hel", "fe80::", "1:2:3", "zzz"]);
    for (const conversion of stored.slice(0, 40)) {
      const text = conversion.data.ip!;
      for (let length = 1; length <= text.length; length++) prefixes.add(text.slice(0, length).toUpperCase());
    }
    const plans = new Set<boolean>();
    for (const prefix of prefixes) {
      const expected = newestFirst.filter((c) => c.data.ip!.toLowerCase().startsWith(prefix.toLowerCase())).map((c) => c.uniqueId);
      for (const [offset, limit] of [[0, 5], [3, 5], [0, 500]] as const) {
        const result = await storage.listConversions({ projectId: project.id, offset, limit, ip: { kind: "prefix", prefix } });
        expect(result.totalCount, prefix).toBe(expected.length);
        expect(result.conversions.map((c) => c.uniqueId), `${prefix} ${offset} ${limit}`).toEqual(expected.slice(offset, offset + limit));
        if (expected.length > offset) plans.add(preferIpIndex(expected.length, stored.length, offset, limit));
      }
    }
    expect([...plans].sort()).toEqual([false, true]);
  });

  it("walks every row, or an ipSearch's, newest first in pages: one long list's rows, on both plans, whatever arrives meanwhile", async () => {
    const project = await newProject();
    const stored = Array.from({ length: 300 }, (_, i) => {
      if (i % 50 === 7) return Object.assign(sampleConversion(), { status: "invalid-ip-address" as const, data: bareIpObject(`not an ip ${i}`, null) });
      return sampleConversion(i % 3 === 0 ? `2001:db8::${i.toString(16)}` : `${10 + (i % 7)}.${i % 256}.${i % 5}.${i % 250}`);
    });
    await commit(project.id, stored.slice(0, 150));
    await commit(project.id, stored.slice(150));
    const plans = new Set<boolean>();
    for (const text of [null, "1", "10.", "2001:db8::1", "not", "0.0.0.0/0", "10.0.0.0/8", "12.10.0.0/16", "2001:db8::/32", "zzz"]) {
      const ip = text === null ? undefined : parseIpSearch(text);
      const expected = (await storage.listConversions({ projectId: project.id, offset: 0, limit: 1000, ip })).conversions.map((c) => c.uniqueId);
      for (const pageRows of [7, 500]) {
        const pages: string[][] = [];
        for await (const page of storage.walkConversions(project.id, ip, pageRows)) pages.push(page.map((c) => c.uniqueId));
        expect(pages.flat(), `${text} ${pageRows}`).toEqual(expected);
        expect(pages.slice(0, -1).every((page) => page.length === pageRows)).toBe(true);
        if (ip && expected.length) plans.add(preferIpIndex(expected.length, stored.length, 0, pageRows));
      }
    }
    expect([...plans].sort()).toEqual([false, true]);

    // rows committed during a walk are newer than every row it has still to read: it goes on without them
    const walk = storage.walkConversions(project.id, undefined, 100);
    const first = (await walk.next()).value as Array<{ uniqueId: string }>;
    await commit(project.id, [sampleConversion("10.0.0.1")]);
    const rest: string[] = [];
    for await (const page of walk) rest.push(...page.map((c) => c.uniqueId));
    expect([...first.map((c) => c.uniqueId), ...rest]).toEqual([...stored].reverse().map((c) => c.uniqueId));
    expect(await collect(storage.walkConversions(randomUUID(), undefined, 10))).toEqual([]);
  });

  it("numbers conversion ids per project: 1, 2, 3… whatever other tenants store, across two instances", async () => {
    const second = await createStorage(options);
    try {
      const [a, b] = [await newProject(), await newProject()];
      const batches = Array.from({ length: 40 }, (_, i) => ({ project: i % 3 ? a : b, conversions: [sampleConversion(), sampleConversion()] }));
      const refused = await commit(a.id, [sampleConversion()], 0);
      expect(refused.accepted).toBe(false);
      // a batch written alone (PostgreSQL writes a one-batch group in one statement)
      expect(await commit(b.id, [sampleConversion(), sampleConversion(), sampleConversion()])).toEqual({ accepted: true, used: 3 });
      await Promise.all(
        batches.map((batch, i) =>
          (i % 2 ? second : storage).commitConversions({ projectId: batch.project.id, period: PERIOD, limit: null, conversions: batch.conversions }),
        ),
      );
      for (const project of [a, b]) {
        const { conversions, totalCount } = await storage.listConversions({ projectId: project.id, offset: 0, limit: 50 });
        // newest first; a refused batch used no number
        expect(conversions.map((c) => c.id)).toEqual(Array.from({ length: Math.min(50, totalCount) }, (_, i) => totalCount - i));
      }
      // which instance's group commits first is a race; a batch's rows are numbered together either way
      const [firstRow, secondRow] = batches.find((batch) => batch.project === b)!.conversions;
      const firstId = (await storage.getConversion(b.id, firstRow!.uniqueId))!.id;
      expect((await storage.getConversion(b.id, secondRow!.uniqueId))?.id).toBe(firstId + 1);
    } finally {
      await second.close();
    }
  });

  it("a refused batch stores and counts nothing", async () => {
    const project = await newProject("free");
    expect(await commit(project.id, [sampleConversion(), sampleConversion()], 3)).toEqual({ accepted: true, used: 2 });
    const refused = [sampleConversion(), sampleConversion()];
    expect(await commit(project.id, refused, 3)).toEqual({ accepted: false, used: 2 });
    expect(await storage.getConversion(project.id, refused[0]!.uniqueId)).toBeNull();
    expect(await storage.usage(project.id, PERIOD)).toBe(2);
    expect(await commit(project.id, [sampleConversion()], 3)).toEqual({ accepted: true, used: 3 });
    expect(await storage.usage(project.id, "2026-12")).toBe(0);
  });

  it("calls a batch's onWriting when its rows go to the database, before the commit resolves", async () => {
    const project = await newProject();
    for (const size of [1, 3000]) {
      const conversions = Array.from({ length: size }, () => sampleConversion());
      const calls: Array<"before commit" | "after commit"> = [];
      let committed = false;
      const onWriting = () => void calls.push(committed ? "after commit" : "before commit");
      const pending = storage.commitConversions({ projectId: project.id, period: PERIOD, limit: null, conversions, onWriting });
      void pending.then(() => (committed = true));
      const result = await pending;
      expect(result.accepted).toBe(true);
      expect(calls.length).toBeGreaterThan(0);
      expect(new Set(calls)).toEqual(new Set(["before commit"]));
      expect(await storage.getConversion(project.id, conversions[size - 1]!.uniqueId)).not.toBeNull();
    }
  });

  it("1200 concurrent single-conversion batches on limit 1000: exactly 1000 accepted and stored", async () => {
    const project = await newProject("free");
    const results = await Promise.all(Array.from({ length: 1200 }, () => commit(project.id, [sampleConversion()], 1000)));
    expect(results.filter((r) => r.accepted)).toHaveLength(1000);
    expect(await storage.usage(project.id, PERIOD)).toBe(1000);
    expect((await storage.listConversions({ projectId: project.id, offset: 0, limit: 1 })).totalCount).toBe(1000);
    expect(await countRows(storage, project.id)).toBe(1000);
  });

  it("concurrent batches of one project: each is told the usage as of its own rows, ids in the same order", async () => {
    const project = await newProject("free");
    const batches = Array.from({ length: 60 }, (_, i) => Array.from({ length: 1 + (i % 3) }, () => sampleConversion()));
    const results = await Promise.all(batches.map((batch) => commit(project.id, batch, 1000)));
    // all fit: every batch accepted, and the usage each saw grows by its own size, in submission order
    let used = 0;
    results.forEach((result, i) => expect(result).toEqual({ accepted: true, used: (used += batches[i]!.length) }));
    const ids = await Promise.all(batches.map(async (batch) => (await storage.getConversion(project.id, batch[0]!.uniqueId))!.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    // near the limit, a run that does not fit whole still accepts exactly the batches that fit
    const tail = await Promise.all(Array.from({ length: 30 }, () => commit(project.id, Array.from({ length: 30 }, () => sampleConversion()), used + 100)));
    expect(tail.filter((r) => r.accepted)).toHaveLength(3);
    expect(await storage.usage(project.id, PERIOD)).toBe(used + 90);
  });

  it("two Storage instances on one database share the quota exactly", async () => {
    const second = await createStorage(options);
    try {
      const project = await newProject("free");
      const results = await Promise.all(
        Array.from({ length: 1200 }, (_, i) =>
          (i % 2 ? second : storage).commitConversions({ projectId: project.id, period: PERIOD, limit: 1000, conversions: [sampleConversion()] }),
        ),
      );
      expect(results.filter((r) => r.accepted)).toHaveLength(1000);
      expect(await second.usage(project.id, PERIOD)).toBe(1000);
      expect(await countRows(storage, project.id)).toBe(1000);
    } finally {
      await second.close();
    }
  });

  it("location and network parts read back exactly, whether new or saved first by another instance", async () => {
    const second = await createStorage(options);
    try {
      const project = await newProject();
      // 150 parts saved by one instance, then 240 by the other: 150 of them already there
      const first = Array.from({ length: 150 }, (_, variant) => sampleConversion(undefined, variant));
      const then = Array.from({ length: SAMPLE_VARIANTS }, (_, variant) => sampleConversion(undefined, variant));
      await commit(project.id, first);
      expect(await second.commitConversions({ projectId: project.id, period: PERIOD, limit: null, conversions: then })).toMatchObject({ accepted: true });
      for (const c of [...first, ...then]) expect((await storage.getConversion(project.id, c.uniqueId))?.data).toStrictEqual(c.data);
    } finally {
      await second.close();
    }
  });

  it("a bulk's new parts, saved while its rows are made ready, come back with each of its rows", async () => {
    const project = await newProject();
    // variants no other test uses: 300 parts of each table new to the store, over 1200 rows (a
    // bulk for SQLite's writer thread and for PostgreSQL's COPY)
    const bulk = Array.from({ length: 1200 }, (_, i) => sampleConversion(undefined, 100_000 + (i % 300)));
    expect(await commit(project.id, bulk)).toEqual({ accepted: true, used: 1200 });
    for (const c of bulk) expect((await storage.getConversion(project.id, c.uniqueId))?.data).toStrictEqual(c.data);
  });

  it("a batch for an unknown project fails alone; its neighbours commit", async () => {
    const project = await newProject();
    const good = sampleConversion();
    const [ok, bad] = await Promise.allSettled([commit(project.id, [good]), commit(randomUUID(), [sampleConversion()])]);
    expect(ok.status).toBe("fulfilled");
    expect(bad.status).toBe("rejected");
    expect(await storage.getConversion(project.id, good.uniqueId)).not.toBeNull();
  });

  it("close waits for pending commits", async () => {
    const extra = await createStorage(options);
    const project = await extra.createProject({ name: "closing", plan: "scale" });
    const conversion = sampleConversion();
    const pending = extra.commitConversions({ projectId: project.id, period: PERIOD, limit: null, conversions: [conversion] });
    await extra.close();
    expect((await pending).accepted).toBe(true);
    expect(await storage.getConversion(project.id, conversion.uniqueId)).not.toBeNull();
  });
});

async function countRows(storage: Storage, projectId: string): Promise<number> {
  let count = 0;
  for (let offset = 0; ; offset += 50) {
    const page = await storage.listConversions({ projectId, offset, limit: 50 });
    count += page.conversions.length;
    if (page.conversions.length < 50) return count;
  }
}

async function collect<T>(pages: AsyncIterable<T[]>): Promise<T[]> {
  const all: T[] = [];
  for await (const page of pages) all.push(...page);
  return all;
}
