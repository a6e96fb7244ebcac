import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeDataDir } from "../../../test/helpers/server.js";
import { randomIpv6, sampleConversion } from "../../../test/helpers/sample-conversions.js";
import { createStorage } from "../index.js";
import { parseIpSearch } from "../ip-bytes.js";
import type { SqlStorage } from "../sql-storage.js";
import type { ListQuery } from "../types.js";
import type { SqliteDialect } from "./dialect.js";

const ROWS = 60_000;
/** a page near the end of the IPv4 rows (nine in ten of them) */
const FAR = 50_000;

describe("the reader thread", () => {
  const dataDir = makeDataDir();
  let onThread: SqlStorage<SqliteDialect>;
  let onLoop: SqlStorage<SqliteDialect>;
  let projectId: string;

  beforeAll(async () => {
    onThread = (await createStorage({ dataDir, sqliteReaderThread: true })) as SqlStorage<SqliteDialect>;
    onLoop = (await createStorage({ dataDir })) as SqlStorage<SqliteDialect>;
    projectId = (await onThread.createProject({ name: "r", plan: "scale" })).id;
    for (let written = 0; written < ROWS; written += 5000) {
      const conversions = Array.from({ length: 5000 }, (_, i) => sampleConversion(i % 10 === 0 ? randomIpv6() : undefined));
      await onThread.commitConversions({ projectId, period: "2026-11", limit: null, conversions });
    }
  }, 60_000);

  afterAll(async () => {
    await onThread.close();
    await onLoop.close();
  });

  const queries = (): ListQuery[] => [
    { projectId, offset: 0, limit: 50 },
    { projectId, offset: ROWS - 20, limit: 50 },
    { projectId, offset: 0, limit: 50, ip: parseIpSearch("1") },
    { projectId, offset: 300, limit: 50, ip: parseIpSearch("12") },
    { projectId, offset: 10, limit: 50, ip: parseIpSearch("0.0.0.0/1") },
    { projectId, offset: 0, limit: 50, ip: parseIpSearch("2001:db8::/32") },
    { projectId, offset: 0, limit: 50, ip: parseIpSearch("no match") },
  ];

  it("answers every list as the main connection does", async () => {
    for (const query of queries()) {
      const there = await onThread.listConversions(query);
      expect(there).toEqual(await onLoop.listConversions(query));
      expect(there.totalCount).toBeGreaterThanOrEqual(query.ip?.kind === "prefix" && query.ip.prefix === "no match" ? 0 : 1);
    }
    expect(onThread.dialect["reader"]).not.toBeNull();
    expect(onLoop.dialect["reader"]).toBeNull();
  });

  it("leaves the event loop free while a long list is read: other work turns meanwhile", async () => {
    // every row matches and the page is at the far end: the count and the page each read all of them
    const query: ListQuery = { projectId, offset: FAR, limit: 50, ip: parseIpSearch("0.0.0.0/0") };
    const turnsWhile = async (storage: SqlStorage<SqliteDialect>) => {
      let turns = 0;
      let reading = true;
      const spin = () => {
        if (!reading) return;
        turns++;
        setImmediate(spin);
      };
      setImmediate(spin);
      const page = await storage.listConversions(query);
      reading = false;
      expect(page.conversions).toHaveLength(50);
      return turns;
    };
    // on the main connection the whole list is one synchronous stretch: nothing else runs
    expect(await turnsWhile(onLoop)).toBe(0);
    expect(await turnsWhile(onThread)).toBeGreaterThan(0);
  });

  it("lets projects take turns: one project's list does not wait behind all of another's", async () => {
    const other = (await onThread.createProject({ name: "other", plan: "scale" })).id;
    await onThread.commitConversions({ projectId: other, period: "2026-11", limit: null, conversions: [sampleConversion("9.9.9.9")] });
    const order: string[] = [];
    const list = (id: string, name: string, offset: number) =>
      onThread.listConversions({ projectId: id, offset, limit: 50, ip: parseIpSearch("0.0.0.0/0") }).then(() => order.push(name));
    // one list at a time (its count, then its page; ../list-turns.ts); first come first served,
    // b1 would wait for all three of the other project's lists
    await Promise.all([list(projectId, "a1", FAR), list(projectId, "a2", FAR), list(projectId, "a3", FAR), list(other, "b1", 0)]);
    expect(order.filter((name) => name.startsWith("a"))).toEqual(["a1", "a2", "a3"]);
    expect(order.indexOf("b1")).toBeLessThan(order.indexOf("a3"));
  });

  it("once it stops, lists are read on the main connection", async () => {
    const query = queries()[3]!;
    const before = await onThread.listConversions(query);
    await onThread.dialect["reader"]!["thread"]["worker"].terminate();
    expect(onThread.dialect["reader"]!.stopped).toBe(true);
    expect(await onThread.listConversions(query)).toEqual(before);
  });
});
