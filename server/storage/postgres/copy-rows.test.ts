/** COPY data for PostgreSQL (copy-rows.ts): the values it stores are those the unnest insert stores, on the real database. */
import { finished } from "node:stream/promises";
import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendNames, createBackend, type Backend } from "../../../test/helpers/backends.js";
import { emptyColumns, type ConversionColumns } from "../dialect.js";
import { TimeSlice } from "../../time-slice.js";
import { arrayLiterals } from "./array-literal.js";
import { copyRows, numberCopyRows, rewriteIntegers } from "./copy-rows.js";
import { COLUMN_NAMES, COLUMN_TYPES } from "./dialect.js";

/** rows with every edge a column meets: nulls, extremes of each type, texts JSON and array literals escape, empty bytes */
function edgeRows(): ConversionColumns {
  const texts = ["8.8.8.8", "2001:DB8::1", "", "ünïcödé 🌍", 'quote " and \\ back', "line\nbreak\ttab\u0001", "NULL", "{a,b}"];
  const rows = emptyColumns();
  for (let i = 0; i < 40; i++) {
    rows.project.push(i % 3 === 0 ? 2 ** 31 - 1 : i + 1);
    rows.unique_id.push(`0192f${String(i).padStart(3, "0")}-aBcD-7eF0-8123-${String(i).padStart(12, "9")}`);
    rows.status.push(i % 3);
    rows.ip.push(i % 5 === 4 ? null : texts[i % texts.length]!);
    rows.ip_key.push(i % 7 === 6 ? null : i % 7 === 5 ? new Uint8Array(0) : new Uint8Array(new ArrayBuffer(24), 3, 17).fill(i));
    rows.started_at.push(i % 2 ? 1_764_000_000_123 + i : 2 ** 53 - 1);
    rows.completed_ms.push(i % 4 === 0 ? -(2 ** 31) : i);
    rows.created_ms.push(i * 1000);
    rows.location.push(i);
    rows.network.push(i * 7);
    rows.tz_offset.push(i % 6 === 0 ? null : i % 2 ? -32768 : 345);
    rows.time_shift.push(i % 2 ? -1 : 0);
    rows.completion_us.push(i % 9 === 0 ? null : i % 2 ? -(2 ** 53 - 1) : 1_764_000_000_123_456 + i);
    rows.extra.push(i % 3 ? null : JSON.stringify({ i: texts[i % texts.length] }));
    rows.seq.push(0);
  }
  return rows;
}

describe("copyRows", () => {
  it("refuses a value its column's type cannot hold, as PostgreSQL would", async () => {
    const make = (change: (rows: ConversionColumns) => void) => {
      const rows = edgeRows();
      change(rows);
      return copyRows(rows, COLUMN_NAMES, COLUMN_TYPES);
    };
    await expect(make((rows) => (rows.location[3] = 1.5))).rejects.toThrow("Not a storable integer: 1.5");
    await expect(make((rows) => (rows.started_at[0] = 2 ** 53))).rejects.toThrow("Not a storable integer");
    await expect(make((rows) => (rows.status[0] = 40_000))).rejects.toThrow(RangeError);
    await expect(make((rows) => (rows.unique_id[1] = "not-a-uuid"))).rejects.toThrow("Not a uuid: not-a-uuid");
    await expect(copyRows(edgeRows(), ["seq", "project"], COLUMN_TYPES)).rejects.toThrow("seq must be the last column");
    await expect(copyRows(edgeRows(), COLUMN_NAMES, COLUMN_TYPES, undefined, ["started_at"])).rejects.toThrow("only integer columns");
    await expect(copyRows(edgeRows(), COLUMN_NAMES, COLUMN_TYPES, undefined, ["tz_offset"])).rejects.toThrow("only integer columns");
    const withNull = edgeRows();
    withNull.location[2] = null as never;
    await expect(copyRows(withNull, COLUMN_NAMES, COLUMN_TYPES, undefined, ["location"])).rejects.toThrow("location is written again: it cannot be null");
  });

  it("gives the event loop a turn within a long group", async () => {
    const edge = edgeRows();
    const rows = emptyColumns();
    for (const name of COLUMN_NAMES) (rows[name] as unknown[]) = Array.from({ length: 20_000 }, (_, i) => edge[name][i % 40]);
    let turns = 0;
    const ticking = setInterval(() => turns++, 0);
    try {
      const copy = await copyRows(rows, COLUMN_NAMES, COLUMN_TYPES, new TimeSlice(1));
      expect(copy.seqAt).toHaveLength(20_000);
    } finally {
      clearInterval(ticking);
    }
    expect(turns).toBeGreaterThan(0);
  });
});

describe.each(backendNames.filter((name) => name === "postgres"))("copyRows on %s", (name) => {
  let backend: Backend;
  let client: pg.Client;

  beforeAll(async () => {
    backend = await createBackend(name);
    const { DATABASE_URL: url, IPATLAS_DB_SCHEMA: schema } = backend.env as { DATABASE_URL: string; IPATLAS_DB_SCHEMA: string };
    client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`SET search_path TO ${schema}`);
    const columns = COLUMN_NAMES.map((column) => `${column} ${COLUMN_TYPES[column]}${column === "ip" ? ' COLLATE "C"' : ""}`);
    await client.query(`CREATE TABLE copied (way text NOT NULL DEFAULT 'copy', ${columns.join(", ")})`);
  });
  afterAll(async () => {
    await client?.end();
    await backend?.dispose();
  });

  it("stores exactly what the unnest insert stores, numbered once the numbers are known", async () => {
    const rows = edgeRows();
    const copy = await copyRows(rows, COLUMN_NAMES, COLUMN_TYPES);
    rows.seq = rows.seq.map((_, i) => 2 ** 40 + i);
    numberCopyRows(copy, rows.seq);
    const stream = client.query(copyFrom(`COPY copied (${COLUMN_NAMES.join(", ")}) FROM STDIN (FORMAT binary)`));
    stream.end(copy.bytes);
    await finished(stream);
    expect(stream.rowCount).toBe(40);
    await client.query(
      `INSERT INTO copied (way, ${COLUMN_NAMES.join(", ")}) SELECT 'unnest', * FROM unnest(${COLUMN_NAMES.map((column, i) => `$${i + 1}::${COLUMN_TYPES[column]}[]`).join(", ")})`,
      await arrayLiterals(COLUMN_NAMES.map((column) => rows[column] as never[])),
    );
    const read = async (way: string) =>
      (await client.query({ text: `SELECT ${COLUMN_NAMES.join(", ")} FROM copied WHERE way = $1 ORDER BY seq`, values: [way], rowMode: "array" })).rows;
    const copied = await read("copy");
    expect(copied).toHaveLength(40);
    expect(copied).toEqual(await read("unnest"));
    // and what the rows held: a spot check past pg's own conversions
    expect(copied[0]!.slice(0, 2)).toEqual([2147483647, "0192f000-abcd-7ef0-8123-999999999990"]);
  });

  it("writes a kept integer column again in place, the rest of each row as it was", async () => {
    await client.query("DELETE FROM copied");
    const rows = edgeRows();
    const copy = await copyRows(rows, COLUMN_NAMES, COLUMN_TYPES, undefined, ["location", "network"]);
    // placeholders first, as a bulk's rows carry before its new parts' ids come
    const ids = rows.location.map((_, i) => (i % 2 ? -(i + 1) : 2 ** 31 - 1 - i));
    rewriteIntegers(copy, "location", ids);
    rewriteIntegers(copy, "network", ids.map((id) => -id));
    expect(() => rewriteIntegers(copy, "location", ids.map(() => 2 ** 31))).toThrow(RangeError);
    expect(() => rewriteIntegers(copy, "project", ids)).toThrow("project was not kept to be written again");
    const stream = client.query(copyFrom(`COPY copied (${COLUMN_NAMES.join(", ")}) FROM STDIN (FORMAT binary)`));
    stream.end(copy.bytes);
    await finished(stream);
    const read = (await client.query({ text: `SELECT ${COLUMN_NAMES.join(", ")} FROM copied WHERE way = 'copy' ORDER BY created_ms`, rowMode: "array" })).rows;
    const at = (name: string) => COLUMN_NAMES.indexOf(name as never);
    expect(read.map((row) => row[at("location")])).toEqual(ids);
    expect(read.map((row) => row[at("network")])).toEqual(ids.map((id) => -id));
    expect(read.map((row) => row[at("ip")])).toEqual(rows.ip);
    expect(read.map((row) => row[at("extra")])).toEqual(rows.extra);
  });
});
