/**
 * What every dialect's writes promise the core (./dialect.ts), on the real database of each
 * backend (test/helpers/backends.ts): parts saved with a light group's rows, quotas reserved per
 * batch. Backend-only behaviour is beside its dialect (postgres/dialect.test.ts, sqlite/*.test.ts).
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendNames, createBackend, type Backend } from "../../test/helpers/backends.js";
import { emptyColumns, type ConversionGroup, type Dialect } from "./dialect.js";
import { openDialect } from "./index.js";
import { dimension, type Dimension } from "./record-codec.js";
import { COPY_FROM_ROWS } from "./postgres/dialect.js";

/** SQLite's light groups of more than 100 rows go to its writer thread, which takes parts' ids only */
const SQLITE_THREAD_ROWS = 101;

describe.each(backendNames)("%s dialect", (name) => {
  let backend: Backend;
  let dialect: Dialect;

  beforeAll(async () => {
    backend = await createBackend(name);
    dialect = await openDialect({ ...backend.storageOptions(), sqliteWriterThread: true });
  });
  afterAll(async () => {
    await dialect?.close();
    await backend?.dispose();
  });

  /** the ids of parts saved in one table only */
  const saved = async (table: "locations" | "networks", dims: Dimension[]) => (await dialect.saveDimensions({ locations: [], networks: [], [table]: dims }))[table];

  it("saveDimensions: ids of new parts and of parts already there, in the order asked", async () => {
    const [a, b, c] = ["a", "b", "c"].map((x) => dimension({ part: x }));
    const [idB] = await saved("locations", [b!]);
    const ids = await saved("locations", [c!, b!, a!]);
    expect(ids[1]).toBe(idB);
    expect(new Set(ids).size).toBe(3);
    expect(await saved("locations", [a!, c!])).toEqual([ids[2], ids[0]]);
  });

  it("saveDimensions: both tables in one call, each table's ids in its order, as many as the thread takes", async () => {
    const tag = randomUUID();
    const locations = Array.from({ length: SQLITE_THREAD_ROWS }, (_, i) => dimension({ city: `both ${tag} ${i}` }));
    const networks = [dimension({ asn: `both ${tag}` })];
    const ids = await dialect.saveDimensions({ locations, networks });
    expect(ids.locations).toHaveLength(locations.length);
    expect(new Set(ids.locations).size).toBe(locations.length);
    expect(await saved("locations", [locations[7]!, locations[0]!])).toEqual([ids.locations[7], ids.locations[0]]);
    expect(await saved("networks", networks)).toEqual(ids.networks);
  });

  /** a group with a batch per entry, each a row per [location, network] (a part's id, or a placeholder for newDimensions) */
  function groupOf(batches: Array<{ project: number; limit: number | null; parts: Array<[number, number]> }>, newDimensions?: ConversionGroup["newDimensions"]): ConversionGroup {
    const rows = emptyColumns();
    const out: ConversionGroup["batches"] = [];
    for (const { project, limit, parts } of batches) {
      const start = rows.project.length;
      for (const [location, network] of parts) {
        rows.project.push(project);
        rows.unique_id.push(randomUUID());
        rows.status.push(0);
        rows.ip.push("192.0.2.1");
        rows.ip_key.push(null);
        rows.started_at.push(Date.now());
        rows.completed_ms.push(1);
        rows.created_ms.push(2);
        rows.location.push(location);
        rows.network.push(network);
        rows.tz_offset.push(null);
        rows.time_shift.push(0);
        rows.completion_us.push(null);
        rows.extra.push(null);
        rows.seq.push(0);
      }
      out.push({ project, period: "2026-11", limit, start, end: rows.project.length });
    }
    return { batches: out, rows, newDimensions };
  }
  const oneBatch = (project: number, limit: number | null, parts: Array<[number, number]>, newDimensions?: ConversionGroup["newDimensions"]) =>
    groupOf([{ project, limit, parts }], newDimensions);

  /** the order the core hands new parts over in */
  const byKey = (a: Dimension, b: Dimension) => (a.key < b.key ? -1 : 1);

  /** the ids of a location and a network saved for `name` ({"city": name}, {"asn": name}), a row's parts */
  async function savedParts(name: string): Promise<[number, number]> {
    const ids = await dialect.saveDimensions({ locations: [dimension({ city: name })], networks: [dimension({ asn: name })] });
    return [ids.locations[0]!, ids.networks[0]!];
  }

  async function newProjectSeq(): Promise<number> {
    const id = `dims-${randomUUID()}`;
    await dialect.insertProject({ id, name: "dims", plan: "scale", created_at: Date.now() });
    return (await dialect.projectSeq(id))!;
  }

  it("writeConversions: a batch's newDimensions are saved in its statement, its rows point at them, their ids come back", async () => {
    const project = await newProjectSeq();
    const tag = randomUUID();
    const [known] = await saved("locations", [dimension({ city: `known ${tag}` })]);
    // one part already saved (by another server, say): it keeps its id
    const locations = [dimension({ city: `new ${tag}` }), dimension({ city: `known ${tag}` })].sort(byKey);
    const networks = [dimension({ asn: `new ${tag}` })];
    const group = oneBatch(project, null, [[-1, -1], [-2, -1]], { locations, networks });

    const [result] = await dialect.writeConversions(group);
    expect(result).toMatchObject({ accepted: true, used: 2 });
    expect(result!.dimensionIds!.locations).toHaveLength(2);
    expect(result!.dimensionIds!.locations[locations.findIndex((d) => d.json.includes("known"))]).toBe(known);
    expect(result!.dimensionIds!.networks).toEqual(await saved("networks", networks));
    const stored = await Promise.all(group.rows.unique_id.map((uid) => dialect.conversionByUid(project, uid)));
    expect(stored.map((row) => [row!.location_json, row!.network_json])).toEqual([
      [locations[0]!.json, networks[0]!.json],
      [locations[1]!.json, networks[0]!.json],
    ]);
  });

  it("writeConversions: a refused batch stores no row but still saves its newDimensions and returns their ids", async () => {
    const project = await newProjectSeq();
    const locations = [dimension({ city: `refused ${randomUUID()}` })];
    const group = oneBatch(project, 0, [[-1, -1]], { locations, networks: locations });
    const [result] = await dialect.writeConversions(group);
    expect(result).toMatchObject({ accepted: false, used: 0 });
    expect(result!.dimensionIds!.locations).toEqual(await saved("locations", locations));
    expect(await dialect.conversionByUid(project, group.rows.unique_id[0]!)).toBeUndefined();
  });

  it("writeConversions: one tenant's batches that fit its quota together: all accepted, each batch's used counting those before it, rows numbered in order", async () => {
    const project = await newProjectSeq();
    const parts = await savedParts("together");
    const group = groupOf([1, 2, 1].map((n) => ({ project, limit: 4, parts: Array.from({ length: n }, () => parts) })));
    const results = await dialect.writeConversions(group);
    expect(results.map((r) => [r.accepted, r.used])).toEqual([[true, 1], [true, 3], [true, 4]]);
    const stored = await Promise.all(group.rows.unique_id.map((uid) => dialect.conversionByUid(project, uid)));
    expect(stored.map((row) => Number(row!.seq))).toEqual([1, 2, 3, 4]);
  });

  it("writeConversions: one tenant's batches that do not fit together are reserved batch by batch: those that fit are written", async () => {
    const project = await newProjectSeq();
    const locations = [dimension({ city: `over ${randomUUID()}` })];
    const group = groupOf(
      [1, 2, 1].map((n) => ({ project, limit: 3, parts: Array.from({ length: n }, (): [number, number] => [-1, -1]) })),
      { locations, networks: locations },
    );
    const results = await dialect.writeConversions(group);
    expect(results.map((r) => [r.accepted, r.used])).toEqual([[true, 1], [true, 3], [false, 3]]);
    expect(results[0]!.dimensionIds!.locations).toEqual(await saved("locations", locations));
    const stored = await Promise.all(group.rows.unique_id.map((uid) => dialect.conversionByUid(project, uid)));
    expect(stored.map((row) => (row ? Number(row.seq) : null))).toEqual([1, 2, 3, null]);
    expect(await dialect.usage(project, "2026-11")).toBe(3);
  });

  it("writeConversions: a group of several batches saves its newDimensions with its rows; their ids come back on its first result", async () => {
    const [a, b] = [await newProjectSeq(), await newProjectSeq()];
    const locations = [dimension({ city: `group ${randomUUID()}` }), dimension({ city: `group ${randomUUID()}` })].sort(byKey);
    const networks = [dimension({ asn: `group ${randomUUID()}` })];
    // b's batch is refused: a's rows are written, and the parts either way
    const group = groupOf(
      [
        { project: a, limit: null, parts: [[-2, -1]] },
        { project: b, limit: 0, parts: [[-1, -1]] },
        { project: a, limit: null, parts: [[-1, -1]] },
      ],
      { locations, networks },
    );
    const results = await dialect.writeConversions(group);
    expect(results.map((r) => [r.accepted, r.used])).toEqual([[true, 1], [false, 0], [true, 2]]);
    expect(results[0]!.dimensionIds!.locations).toEqual(await saved("locations", locations));
    expect(results[0]!.dimensionIds!.networks).toEqual(await saved("networks", networks));
    const stored = await Promise.all(group.rows.unique_id.map((uid, row) => dialect.conversionByUid(group.rows.project[row]!, uid)));
    expect(stored.map((row) => row && [row.location_json, row.network_json])).toEqual([
      [locations[1]!.json, networks[0]!.json],
      undefined,
      [locations[0]!.json, networks[0]!.json],
    ]);
  });

  it("writeConversions: a group whose batches are all refused still saves its newDimensions", async () => {
    const [a, b] = [await newProjectSeq(), await newProjectSeq()];
    const locations = [dimension({ city: `all refused ${randomUUID()}` })];
    const group = groupOf(
      [
        { project: a, limit: 0, parts: [[-1, -1]] },
        { project: b, limit: 0, parts: [[-1, -1]] },
      ],
      { locations, networks: [] },
    );
    const results = await dialect.writeConversions(group);
    expect(results.map((r) => r.accepted)).toEqual([false, false]);
    expect(results[0]!.dimensionIds).toEqual({ locations: await saved("locations", locations), networks: [] });
  });

  it("writeConversions: a light group too large for SQLite's main connection still saves its newDimensions and points its rows at them", async () => {
    const project = await newProjectSeq();
    const locations = [dimension({ city: `large ${randomUUID()}` })];
    const network = dimension({ asn: `large ${randomUUID()}` });
    const [networkId] = await saved("networks", [network]);
    // a new location, a network saved before: nothing new to save in that table
    const group = oneBatch(project, null, Array.from({ length: SQLITE_THREAD_ROWS }, (): [number, number] => [-1, networkId!]), { locations, networks: [] });
    const [result] = await dialect.writeConversions(group);
    expect(result).toMatchObject({ accepted: true, used: SQLITE_THREAD_ROWS });
    expect(result!.dimensionIds).toEqual({ locations: await saved("locations", locations), networks: [] });
    const last = await dialect.conversionByUid(project, group.rows.unique_id.at(-1)!);
    expect([last!.location_json, last!.network_json]).toEqual([locations[0]!.json, network.json]);
  });
  it("writeConversions: large groups without new parts (PostgreSQL sends them as COPY data): a bulk alone, and several tenants' batches with one refused", async () => {
    const [a, b] = [await newProjectSeq(), await newProjectSeq()];
    const tag = randomUUID();
    const pair = await savedParts(`copy ${tag}`);
    const parts = (n: number) => Array.from({ length: n }, () => pair);
    const bulk = oneBatch(a, null, parts(COPY_FROM_ROWS));
    expect((await dialect.writeConversions(bulk)).map((r) => [r.accepted, r.used])).toEqual([[true, COPY_FROM_ROWS]]);
    // b's second batch does not fit its quota: the rows of the other two are written without it
    const group = groupOf([
      { project: b, limit: 600, parts: parts(500) },
      { project: a, limit: null, parts: parts(400) },
      { project: b, limit: 600, parts: parts(300) },
    ]);
    const results = await dialect.writeConversions(group);
    expect(results.map((r) => [r.accepted, r.used])).toEqual([[true, 500], [true, COPY_FROM_ROWS + 400], [false, 500]]);
    const seqs = async (g: ConversionGroup, batch: number) => {
      const { project, start, end } = g.batches[batch]!;
      const rows = await Promise.all([start, start + 1, end - 1].map((row) => dialect.conversionByUid(project, g.rows.unique_id[row]!)));
      return rows.map((row) => (row ? Number(row.seq) : null));
    };
    expect(await seqs(bulk, 0)).toEqual([1, 2, COPY_FROM_ROWS]);
    expect(await seqs(group, 0)).toEqual([1, 2, 500]);
    expect(await seqs(group, 1)).toEqual([COPY_FROM_ROWS + 1, COPY_FROM_ROWS + 2, COPY_FROM_ROWS + 400]);
    expect(await seqs(group, 2)).toEqual([null, null, null]);
    const row = await dialect.conversionByUid(b, group.rows.unique_id[499]!);
    expect([row!.ip, Number(row!.started_at), row!.location_json, row!.network_json]).toEqual(["192.0.2.1", group.rows.started_at[499], `{"city":"copy ${tag}"}`, `{"asn":"copy ${tag}"}`]);
    expect([await dialect.usage(a, "2026-11"), await dialect.usage(b, "2026-11")]).toEqual([COPY_FROM_ROWS + 400, 500]);
  });
  it("writeConversions: a large group the database refuses (an id twice) fails whole: no row, no quota used; the next group is written", async () => {
    const project = await newProjectSeq();
    const tag = randomUUID();
    const pair = await savedParts(`twice ${tag}`);
    const parts = Array.from({ length: COPY_FROM_ROWS }, () => pair);
    const twice = oneBatch(project, null, parts);
    twice.rows.unique_id[COPY_FROM_ROWS - 1] = twice.rows.unique_id[0]!;
    await expect(dialect.writeConversions(twice)).rejects.toThrow(/unique/i);
    expect(await dialect.usage(project, "2026-11")).toBe(0);
    expect(await dialect.conversionByUid(project, twice.rows.unique_id[1]!)).toBeUndefined();
    const next = oneBatch(project, null, parts);
    expect((await dialect.writeConversions(next)).map((r) => [r.accepted, r.used])).toEqual([[true, COPY_FROM_ROWS]]);
    expect(Number((await dialect.conversionByUid(project, next.rows.unique_id[0]!))!.seq)).toBe(1);
  });
});
