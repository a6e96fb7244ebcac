/**
 * The ip_key index is keyed by block of row ids first (migration 6): an ipSearch must seek in
 * every block that holds the project's rows, the first, the last and those between.
 */
import Database from "better-sqlite3";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createBackend, type Backend } from "../../../test/helpers/backends.js";
import { sampleConversion } from "../../../test/helpers/sample-conversions.js";
import { bareIpObject } from "../../../lib/schemas/ip-object.js";
import { parseIpSearch } from "../ip-bytes.js";
import { createStorage } from "../index.js";
import { preferIpIndex } from "../sql-storage.js";
import type { NewConversion, Storage } from "../types.js";
import { IP_KEY_BLOCK_BITS } from "./migrations.js";

let backend: Backend;
let storage: Storage;
let dataDir: string;

beforeAll(async () => {
  backend = await createBackend("sqlite");
  ({ dataDir } = backend.storageOptions() as { dataDir: string });
  storage = await createStorage({ dataDir });
});
afterAll(async () => {
  await storage?.close();
  await backend?.dispose();
});

it("ipSearch finds the rows of every block, on both plans", async () => {
  const project = await storage.createProject({ name: "blocks", plan: "scale" });
  const other = await storage.createProject({ name: "other", plan: "scale" });
  const block = 2 ** IP_KEY_BLOCK_BITS;
  const file = new Database(join(dataDir, "ipatlas.sqlite"));
  // Park-Miller: exact in doubles; a quarter of the octets are 10, so "10." and "10.1" match some
  let seed = 11;
  const next = () => (seed = (seed * 48271) % 2147483647);
  const octet = () => (next() % 4 === 0 ? 10 : next() % 256);
  const stored: NewConversion[] = [];
  try {
    // the project's rows in blocks 0, 1, 2, 4 and 5: another project's row moves the next row id on
    for (const spacerId of [0, block, 2 * block + 7, 4 * block, 5 * block]) {
      const otherSeq = file.prepare("SELECT seq FROM projects WHERE id = ?").pluck().get(other.id);
      if (spacerId) file.prepare("INSERT INTO conversions (id, project, unique_id, status, started_at, created_ms, time_shift) VALUES (?, ?, randomblob(16), 0, 0, 0, 0)").run(spacerId, otherSeq);
      const batch = Array.from({ length: 40 }, () => sampleConversion([octet(), octet(), octet(), octet()].join(".")));
      // and one input that is no address: found by its text, on the index of rows without a key
      const invalid = `10.${spacerId} is no address`;
      batch.push(Object.assign(sampleConversion(invalid), { status: "invalid-ip-address" as const, data: bareIpObject(invalid, null) }));
      await storage.commitConversions({ projectId: project.id, period: "2026-11", limit: null, conversions: batch });
      stored.push(...batch);
    }
    const blocks = file.prepare(`SELECT DISTINCT c.id >> ${IP_KEY_BLOCK_BITS} FROM conversions c JOIN projects p ON p.seq = c.project WHERE p.id = ? ORDER BY 1`).pluck().all(project.id);
    expect(blocks).toEqual([0, 1, 2, 4, 5]);
  } finally {
    file.close();
  }

  const newestFirst = [...stored].reverse();
  const inRange = (ip: string, from: number, bits: number) => {
    const value = ip.split(".").reduce((n, part) => n * 256 + Number(part), 0);
    return Math.floor(value / 2 ** (32 - bits)) === Math.floor(from / 2 ** (32 - bits));
  };
  const searches: Array<[string, (ip: string) => boolean]> = [
    ["10.", (ip) => ip.startsWith("10.")],
    ["10.1", (ip) => ip.startsWith("10.1")],
    ["1", (ip) => ip.startsWith("1")],
    [stored[3]!.data.ip!, (ip) => ip.startsWith(stored[3]!.data.ip!)],
    [stored[100]!.data.ip!.split(".").slice(0, 2).join(".") + ".", (ip) => ip.startsWith(stored[100]!.data.ip!.split(".").slice(0, 2).join(".") + ".")],
    ["10.0.0.0/8", (ip) => inRange(ip, 10 * 2 ** 24, 8)],
    ["0.0.0.0/1", (ip) => inRange(ip, 0, 1)],
  ];
  const plans = new Set<boolean>();
  for (const [text, matches] of searches) {
    const expected = newestFirst.filter((c) => matches(c.data.ip!)).map((c) => c.uniqueId);
    expect(expected.length, text).toBeGreaterThan(0);
    for (const [offset, limit] of [[0, 5], [7, 30], [0, 500]] as const) {
      const result = await storage.listConversions({ projectId: project.id, offset, limit, ip: parseIpSearch(text) });
      expect(result.totalCount, text).toBe(expected.length);
      expect(result.conversions.map((c) => c.uniqueId), `${text} ${limit}`).toEqual(expected.slice(offset, offset + limit));
      plans.add(preferIpIndex(expected.length, stored.length, offset, limit));
    }
  }
  expect([...plans].sort()).toEqual([false, true]);
});
