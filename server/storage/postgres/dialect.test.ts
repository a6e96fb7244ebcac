/** What only PostgreSQL's dialect does, on the real database (when TEST_DATABASE_URL is set; test/helpers/backends.ts); what both do is in ../dialect.test.ts. */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendNames, createBackend, type Backend } from "../../../test/helpers/backends.js";
import { dimension } from "../record-codec.js";
import { openPostgresDialect, type PostgresDialect } from "./dialect.js";

describe.each(backendNames.filter((name) => name === "postgres"))("%s dialect", (name) => {
  let backend: Backend;
  let dialect: PostgresDialect;
  let url: string;
  let schema: string;

  beforeAll(async () => {
    backend = await createBackend(name);
    ({ DATABASE_URL: url, IPATLAS_DB_SCHEMA: schema } = backend.env as { DATABASE_URL: string; IPATLAS_DB_SCHEMA: string });
    dialect = await openPostgresDialect({ url, schema });
    await dialect.migrate();
  });
  afterAll(async () => {
    await dialect?.close();
    await backend?.dispose();
  });

  it("saveDimensions: each part's text saved exactly, under its own hash, whatever JSON it holds", async () => {
    const values = [{ name: "Zürich 🇨🇭", at: Date.now() }, { quote: 'a "b" \\ c', line: "x\ny\u0001z" }, { empty: "" }, [1, null, { deep: [true] }]];
    const parts = values.map((value) => dimension(value));
    const { locations: ids } = await dialect.saveDimensions({ locations: parts, networks: [] });
    const { rows } = await dialect.pool.query(`SELECT id, hash, json FROM ${schema}.locations WHERE id = ANY($1)`, [ids]);
    expect(ids.map((id) => rows.find((row) => row.id === id)).map((row) => [row.json, row.hash.toString("hex")])).toEqual(parts.map((part) => [part.json, part.key]));
    // a text holding the separator raw (JSON text never does) is refused, not saved shifted
    const raw = { ...dimension({ raw: Date.now() }), json: '{"raw":"a\u0001b"}' };
    await expect(dialect.saveDimensions({ locations: [raw], networks: [] })).rejects.toThrow("U+0001");
  });

  it("saveDimensions: a part another transaction commits while the statement waits on it gets that row's id", async () => {
    const part = dimension({ part: `raced ${Date.now()}` });
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    try {
      await other.query(`SET search_path TO ${schema}`);
      await other.query("BEGIN");
      const { rows } = await other.query("INSERT INTO locations (hash, json) VALUES ($1, $2) RETURNING id", [Buffer.from(part.key, "hex"), part.json]);
      const saving = dialect.saveDimensions({ locations: [part], networks: [] });
      // the statement has taken its snapshot and waits for the other insert's outcome; asked
      // outside the other's transaction, whose first look at pg_stat_activity would be its last
      const waiting = async () => (await dialect.pool.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%INSERT INTO locations%'")).rows[0].n;
      await expect.poll(waiting, { timeout: 5000, interval: 20 }).toBeGreaterThan(0);
      await other.query("COMMIT");
      expect(await saving).toEqual({ locations: [rows[0].id], networks: [] });
    } finally {
      await other.end();
    }
  });

  it("saveDimensions: a statement PostgreSQL ends as a deadlock's victim runs again", async () => {
    // another writer that locks the same new parts in the other order (a server of another
    // version during an upgrade, an operator's transaction): PostgreSQL fails one of the two
    const [first, second] = [dimension({ part: `deadlock a ${Date.now()}` }), dimension({ part: `deadlock b ${Date.now()}` })].sort((a, b) => (a.key < b.key ? -1 : 1));
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    const insert = "INSERT INTO locations (hash, json) VALUES ($1, $2) RETURNING id";
    try {
      await other.query(`SET search_path TO ${schema}`);
      // the statement must find the deadlock first: it waits longer, but on a loaded machine the
      // other's check could still come first; a later check here settles it (a superuser setting,
      // which the test database's owner may lack: then it is left to the order of waiting)
      await other.query("SET deadlock_timeout = '10s'").catch(() => {});
      await other.query("BEGIN");
      const theirSecond = await other.query(insert, [Buffer.from(second!.key, "hex"), second!.json]);
      // saves the first part, then waits on the other's second
      const saving = dialect.saveDimensions({ locations: [first!, second!], networks: [] });
      const waiting = async () => (await dialect.pool.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%INSERT INTO locations%'")).rows[0].n;
      await expect.poll(waiting, { timeout: 5000, interval: 20 }).toBeGreaterThan(0);
      // waits on the statement's first: a deadlock, which the statement, waiting longer, finds
      // first (deadlock_timeout) and is failed for
      const theirFirst = await other.query(insert, [Buffer.from(first!.key, "hex"), first!.json]);
      await other.query("COMMIT");
      expect(await saving).toEqual({ locations: [theirFirst.rows[0].id, theirSecond.rows[0].id], networks: [] });
    } finally {
      await other.end();
    }
  });
});
