/**
 * better-sqlite3 against Node's built-in node:sqlite on the statements the embedded store runs
 * most: 5000-row insert transactions into a table shaped like `conversions` (random-order ip index,
 * time-ordered unique id) as it fills, and point reads by unique id. Same pragmas as the store
 * (WAL, synchronous=NORMAL, 64 MiB cache). This is the figure behind the choice of driver
 * (docs/storage.md, "SQLite driver"). Times are the process's CPU time (user + system), which a
 * busy shared machine disturbs far less than wall time; WAL with synchronous=NORMAL does not wait
 * on the disk at commit.
 *
 *   npx tsx bench/sqlite-driver.ts [--rows 300000]
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import BetterSqlite3 from "better-sqlite3";
import { DatabaseSync } from "node:sqlite";

const { values } = parseArgs({ options: { rows: { type: "string", default: "300000" } } });
const ROWS = Number(values.rows);
const BATCH = 5000;
const READS = 50_000;

const SCHEMA = `
  CREATE TABLE conversions (
    id INTEGER PRIMARY KEY, project INTEGER NOT NULL, unique_id BLOB NOT NULL, status INTEGER NOT NULL,
    ip TEXT, ip_key BLOB, created_ms INTEGER NOT NULL, location INTEGER, network INTEGER);
  CREATE UNIQUE INDEX conversions_unique_id ON conversions(unique_id);
  CREATE INDEX conversions_ip_key ON conversions(project, ip_key);`;
const PRAGMAS = ["journal_mode = WAL", "synchronous = NORMAL", "cache_size = -65536"];
const INSERT = "INSERT INTO conversions (project, unique_id, status, ip, ip_key, created_ms, location, network) VALUES (?, ?, 0, ?, ?, ?, ?, ?)";
const SELECT = "SELECT * FROM conversions WHERE unique_id = ?";

/** the two drivers behind one small surface: a prepared insert run in a transaction, a prepared get */
interface Driver {
  exec(sql: string): void;
  insertBatch(rows: unknown[][]): void;
  get(id: Uint8Array): unknown;
  close(): void;
}

function betterSqlite3(file: string): Driver {
  const db = new BetterSqlite3(file);
  for (const pragma of PRAGMAS) db.pragma(pragma);
  let insert: BetterSqlite3.Statement | undefined;
  let select: BetterSqlite3.Statement | undefined;
  let batch: ((rows: unknown[][]) => void) | undefined;
  return {
    exec: (sql) => db.exec(sql),
    insertBatch(rows) {
      insert ??= db.prepare(INSERT);
      batch ??= db.transaction((all: unknown[][]) => {
        for (const row of all) insert!.run(...row);
      });
      batch(rows);
    },
    get: (id) => (select ??= db.prepare(SELECT)).get(id),
    close: () => db.close(),
  };
}

function nodeSqlite(file: string): Driver {
  const db = new DatabaseSync(file);
  for (const pragma of PRAGMAS) db.exec(`PRAGMA ${pragma}`);
  let insert: ReturnType<DatabaseSync["prepare"]> | undefined;
  let select: ReturnType<DatabaseSync["prepare"]> | undefined;
  return {
    exec: (sql) => db.exec(sql),
    insertBatch(rows) {
      insert ??= db.prepare(INSERT);
      db.exec("BEGIN");
      try {
        for (const row of rows) insert.run(...(row as Parameters<typeof insert.run>));
        db.exec("COMMIT");
      } catch (error) {
        db.exec("ROLLBACK");
        throw error;
      }
    },
    get: (id) => (select ??= db.prepare(SELECT)).get(id),
    close: () => db.close(),
  };
}

/** time-ordered 16-byte ids, like the store's UUIDv7 */
function uniqueId(n: number): Uint8Array {
  const id = randomBytes(16);
  id.writeUIntBE(n, 0, 6);
  return id;
}

function cpuMs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

function run(name: string, open: (file: string) => Driver) {
  const dir = mkdtempSync(join(tmpdir(), "ipatlas-driver-"));
  const db = open(join(dir, "bench.sqlite"));
  db.exec(SCHEMA);
  const ids: Uint8Array[] = [];
  const commitMs: number[] = [];
  for (let done = 0; done < ROWS; done += BATCH) {
    const rows: unknown[][] = [];
    for (let i = 0; i < BATCH; i++) {
      const key = randomBytes(5);
      const id = uniqueId(done + i);
      if ((done + i) % 7 === 0) ids.push(id);
      rows.push([1, id, `${key[0]}.${key[1]}.${key[2]}.${key[3]}`, key, Date.now(), key[4], key[3]]);
    }
    const start = process.cpuUsage();
    db.insertBatch(rows);
    commitMs.push(cpuMs(start));
  }
  const start = process.cpuUsage();
  for (let i = 0; i < READS; i++) db.get(ids[(i * 7919) % ids.length]!);
  const readUs = (cpuMs(start) * 1000) / READS;
  db.close();
  rmSync(dir, { recursive: true, force: true });
  const last = commitMs.slice(-10);
  return {
    driver: name,
    "5000-row commit, first 10 (CPU ms)": +(commitMs.slice(0, 10).reduce((a, b) => a + b, 0) / 10).toFixed(1),
    [`5000-row commit at ${ROWS / 1000}k (CPU ms)`]: +(last.reduce((a, b) => a + b, 0) / last.length).toFixed(1),
    "read by id (CPU µs)": +readUs.toFixed(2),
  };
}

console.log(`Node ${process.version}, ${ROWS} rows in ${BATCH}-row transactions, ${READS} reads by id`);
console.table([run("better-sqlite3", betterSqlite3), run("node:sqlite", nodeSqlite), run("better-sqlite3 (again)", betterSqlite3)]);
