/**
 * PostgreSQL's SQL (issue #6): the same tables and compact records as SQLite, shared by several
 * servers. A group commit is one transaction in three round trips whatever its size: BEGIN and
 * one quota upsert per batch (row-locked, so exact across servers), one multi-row insert (unnest
 * of arrays, sent as array literals built in time slices) for all accepted rows, COMMIT; a group
 * of one batch, or of one tenant's batches that fit its quota together, is a single statement. A
 * light group's new location and network rows are saved in the statement that inserts its rows.
 * A bulk's rows go as COPY data instead (copy-rows.ts; docs/storage.md "Group commit").
 */
import { finished } from "node:stream/promises";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import type { Plan } from "../../../lib/schemas/api.js";
import { acceptedColumns, placeSavedDimensions, sameQuota, type ConversionColumns, type ConversionGroup, type Dialect, type DimensionTable, type GroupBatch, type KeyAuthRows, type PageSource, type WriteResult } from "../dialect.js";
import type { IpScan, IpSearchPlan } from "../ip-prefix.js";
import { pendingMigrations } from "../migrations.js";
import type { SavedPart } from "../record-codec.js";
import { CONVERSION_COLUMNS, CONVERSION_JOINS, type ConversionRow, type KeyRow, type ProjectRow, type WebsiteRow } from "../rows.js";
import type { CommitResult } from "../types.js";
import type { TimeSlice } from "../../time-slice.js";
import { arrayLiterals, type ArrayElement } from "./array-literal.js";
import { copyRows, numberCopyRows, rewriteIntegers, type CopyType } from "./copy-rows.js";
import { connectPostgres, type PostgresConnection, type PostgresOptions } from "./connect.js";
import { IP_KEY_BLOCK_BITS, POSTGRES_MIGRATIONS } from "./migrations.js";

/** Moves the change counter in the same statement as the change it follows. */
const BUMP = "bump AS (UPDATE change_counter SET version = version + 1 WHERE id = 1 AND EXISTS (SELECT 1 FROM changed))";

/** Connects the pool (one clear sentence on failure); createStorage migrates. */
export async function openPostgresDialect(options: PostgresOptions): Promise<PostgresDialect> {
  return new PostgresDialect(await connectPostgres(options));
}

export class PostgresDialect implements Dialect {
  readonly kind = "postgres" as const;
  readonly groupRows = 50_000;
  readonly concurrentWrites = true;
  readonly pool: pg.Pool;
  /** a quarter of the pool (at least one): many slow lists at once would take the connections every GET's commit waits for */
  readonly listReaders: number;
  private readonly schema: string;

  constructor(connection: PostgresConnection) {
    this.pool = connection.pool;
    this.schema = connection.schema;
    this.listReaders = Math.max(1, Math.floor((this.pool.options.max ?? 10) / 4));
  }

  private async rows<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return (await this.pool.query(sql, params)).rows as T[];
  }

  private async row<T>(sql: string, params: unknown[] = []): Promise<T | undefined> {
    return (await this.rows<T>(sql, params))[0];
  }

  /**
   * A statement in a transaction of its own (autocommit), run again when PostgreSQL ends it as a
   * deadlock's victim: it changed nothing then. The servers of one version lock new parts in one
   * order, their keys'; another writer may not (a server of the version before, during an
   * upgrade, or an operator's transaction), and the request would otherwise fail.
   */
  private async autocommit(sql: string, params: unknown[]): Promise<pg.QueryResult> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.pool.query(sql, params);
      } catch (error) {
        if ((error as { code?: string }).code !== DEADLOCK_DETECTED || attempt >= AUTOCOMMIT_TRIES) throw error;
      }
    }
  }

  /**
   * Filtered lists and their counts are index-only scans, which skip the table only for pages
   * VACUUM has marked all-visible; without it every match's page is read, and the planner has no
   * statistics (docs/storage.md "PostgreSQL: notes and differences from SQLite").
   */
  async upkeepWarnings(): Promise<string[]> {
    const reply = await this.row<{ server: string; table: string[] | null }>(
      "SELECT current_setting('autovacuum') AS server, (SELECT reloptions FROM pg_class WHERE oid = 'conversions'::regclass) AS table",
    );
    const off = reply?.table?.includes("autovacuum_enabled=false")
      ? "autovacuum is off for the conversions table"
      : reply?.server === "off"
        ? "PostgreSQL's autovacuum is off"
        : null;
    if (!off) return [];
    return [
      `${off}: lists filtered by ipSearch, and their counts, read a table page for every match until VACUUM runs, ` +
        `and slow down as conversions grow. Turn it on, or run VACUUM ANALYZE conversions regularly (docs/storage.md "PostgreSQL: notes and differences from SQLite").`,
    ];
  }

  /** Several servers may start at once: an advisory lock lets one migrate while the others wait. */
  async migrate(): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`ipatlas-migrate:${this.schema}`]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${this.schema}`);
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)`);
      const applied = (await client.query("SELECT version FROM schema_migrations")).rows.map((r) => r.version as number);
      for (const migration of pendingMigrations(POSTGRES_MIGRATIONS, applied)) {
        await client.query(migration.sql);
        await client.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)", [
          migration.version,
          migration.name,
          Date.now(),
        ]);
      }
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  async changeVersion(): Promise<number> {
    return (await this.row<{ version: number }>("SELECT version FROM change_counter WHERE id = 1"))!.version;
  }

  async insertProject(row: ProjectRow): Promise<void> {
    await this.pool.query(
      `WITH changed AS (INSERT INTO projects (id, name, plan, created_at) VALUES ($1, $2, $3, $4) RETURNING id), ${BUMP}
       SELECT 1`,
      [row.id, row.name, row.plan, row.created_at],
    );
  }

  projectById(id: string): Promise<ProjectRow | undefined> {
    return this.row<ProjectRow>("SELECT * FROM projects WHERE id = $1", [id]);
  }

  listProjects(): Promise<ProjectRow[]> {
    return this.rows<ProjectRow>("SELECT * FROM projects ORDER BY seq");
  }

  setPlan(projectId: string, plan: Plan): Promise<ProjectRow | undefined> {
    return this.row<ProjectRow>(`WITH changed AS (UPDATE projects SET plan = $2 WHERE id = $1 RETURNING *), ${BUMP} SELECT * FROM changed`, [projectId, plan]);
  }

  async insertKey(row: KeyRow & { hash: string }): Promise<void> {
    await this.pool.query(
      `WITH changed AS (
         INSERT INTO api_keys (id, project_id, name, kind, hash, prefix, website_id, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id), ${BUMP}
       SELECT 1`,
      [row.id, row.project_id, row.name, row.kind, row.hash, row.prefix, row.website_id, row.created_at],
    );
  }

  listKeys(projectId: string): Promise<KeyRow[]> {
    return this.rows<KeyRow>("SELECT * FROM api_keys WHERE project_id = $1 ORDER BY created_at, id", [projectId]);
  }

  keyById(keyId: string): Promise<KeyRow | undefined> {
    return this.row<KeyRow>("SELECT * FROM api_keys WHERE id = $1", [keyId]);
  }

  async keyAuthByHash(hash: string): Promise<KeyAuthRows | undefined> {
    const row = await this.row<KeyRow & { p: ProjectRow; w: WebsiteRow | null }>(
      `SELECT k.*, row_to_json(p) AS p, row_to_json(w) AS w
       FROM api_keys k JOIN projects p ON p.id = k.project_id
       LEFT JOIN websites w ON w.id = k.website_id AND w.removed_at IS NULL
       WHERE k.hash = $1 AND k.revoked_at IS NULL`,
      [hash],
    );
    if (!row) return undefined;
    const { p, w, ...key } = row;
    return { key, project: p, website: w };
  }

  rollKey(keyId: string, hash: string, prefix: string): Promise<KeyRow | undefined> {
    return this.row<KeyRow>(
      `WITH changed AS (UPDATE api_keys SET hash = $2, prefix = $3 WHERE id = $1 AND revoked_at IS NULL RETURNING *), ${BUMP}
       SELECT * FROM changed`,
      [keyId, hash, prefix],
    );
  }

  revokeKey(keyId: string, at: number): Promise<KeyRow | undefined> {
    return this.row<KeyRow>(
      `WITH changed AS (UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING *), ${BUMP}
       SELECT * FROM changed`,
      [keyId, at],
    );
  }

  async touchKeys(uses: Array<{ keyId: string; at: number }>): Promise<void> {
    await this.pool.query(
      `UPDATE api_keys k SET last_used_at = u.at FROM unnest($1::text[], $2::bigint[]) AS u(id, at)
       WHERE k.id = u.id AND (k.last_used_at IS NULL OR k.last_used_at < u.at)`,
      [uses.map((u) => u.keyId), uses.map((u) => u.at)],
    );
  }

  async insertWebsite(row: WebsiteRow): Promise<void> {
    await this.pool.query(
      `WITH changed AS (INSERT INTO websites (id, project_id, origin, created_at) VALUES ($1, $2, $3, $4) RETURNING id), ${BUMP}
       SELECT 1`,
      [row.id, row.project_id, row.origin, row.created_at],
    );
  }

  listWebsites(projectId: string): Promise<WebsiteRow[]> {
    return this.rows<WebsiteRow>("SELECT * FROM websites WHERE project_id = $1 AND removed_at IS NULL ORDER BY created_at, id", [projectId]);
  }

  websiteById(websiteId: string): Promise<WebsiteRow | undefined> {
    return this.row<WebsiteRow>("SELECT * FROM websites WHERE id = $1 AND removed_at IS NULL", [websiteId]);
  }

  removeWebsite(websiteId: string, at: number): Promise<WebsiteRow | undefined> {
    return this.row<WebsiteRow>(
      `WITH changed AS (UPDATE websites SET removed_at = $2 WHERE id = $1 AND removed_at IS NULL RETURNING *),
       revoked AS (UPDATE api_keys SET revoked_at = $2 WHERE website_id IN (SELECT id FROM changed) AND revoked_at IS NULL),
       ${BUMP}
       SELECT * FROM changed`,
      [websiteId, at],
    );
  }

  async projectSeq(projectId: string): Promise<number | undefined> {
    return (await this.row<{ seq: number }>("SELECT seq FROM projects WHERE id = $1", [projectId]))?.seq;
  }

  async usage(project: number, period: string): Promise<number> {
    return (await this.row<{ used: number }>("SELECT used FROM usage WHERE project = $1 AND period = $2", [project, period]))?.used ?? 0;
  }

  /** Outside the write transaction, so no lock on these rows is held for long. One round trip. */
  async saveDimensions(dims: Record<DimensionTable, SavedPart[]>, slice?: TimeSlice): Promise<Record<DimensionTable, number[]>> {
    // one statement and one commit for both tables
    const saved = newDimensionsSql(true, 0);
    return dimensionIds((await this.autocommit(`WITH ${saved.ctes} SELECT ${saved.ids}`, await dimensionParams(dims, slice))).rows[0] as DimensionIdsReply);
  }

  async writeConversions(group: ConversionGroup, slice?: TimeSlice, sent?: () => void): Promise<WriteResult[]> {
    if (!group.newDimensions && group.rows.project.length >= COPY_FROM_ROWS) return this.writeByCopy(group, slice, sent);
    await placeSavedDimensions(group);
    const together = await this.writeAsOneBatch(group, slice, sent);
    if (together) return together;
    // built before the transaction, which then holds its quota rows no longer than it must; the
    // row numbers (the last column) are known only once the quota is reserved
    const allRows = await insertParams(group.rows, NUMBERED_IN_SQL, slice);
    const dims = group.newDimensions && (await dimensionParams(group.newDimensions, slice));
    return this.reserveAndWrite(group, async (client, rows, results) => {
      // a group's new parts are saved even when every batch is refused
      if (!rows.project.length && !dims) return;
      // a fresh slice here: the group's, stale after the round trips, would pause at once while
      // the transaction holds its quota rows
      const params = rows === group.rows ? [...allRows, ...(await insertParams(rows, ["seq"]))] : await insertParams(rows);
      const inserted = client.query(dims ? INSERT_CONVERSIONS_WITH_DIMENSIONS : INSERT_CONVERSIONS, dims ? [...params, ...dims] : params);
      sent?.();
      const reply = (await inserted).rows[0] as DimensionIdsReply | undefined;
      if (dims) results[0] = { ...results[0]!, dimensionIds: dimensionIds(reply!) };
    });
  }

  /**
   * A large group without new parts (a bulk: its parts were saved first) sent as COPY data
   * (copy-rows.ts) in the transaction that reserves its quota: three round trips, as a group of
   * several batches takes, and PostgreSQL reads the values as they are instead of parsing array
   * literals.
   */
  private async writeByCopy(group: ConversionGroup, slice?: TimeSlice, sent?: () => void): Promise<WriteResult[]> {
    // made while the bulk's new parts are saved; their ids go in when they come
    const copy = await copyRows(group.rows, COLUMN_NAMES, COLUMN_TYPES, slice, group.savingDimensions ? DIMENSION_COLUMNS : []);
    if (group.savingDimensions) {
      await placeSavedDimensions(group);
      for (const name of DIMENSION_COLUMNS) rewriteIntegers(copy, name, group.rows[name]);
    }
    return this.reserveAndWrite(group, async (client, rows) => {
      if (!rows.project.length) return;
      const data = rows === group.rows ? copy : await copyRows(rows, COLUMN_NAMES, COLUMN_TYPES);
      numberCopyRows(data, rows.seq);
      const stream = client.query(copyFrom(COPY_CONVERSIONS));
      stream.end(data.bytes);
      sent?.();
      await finished(stream);
    });
  }

  /**
   * The group's transaction on a client of its own: BEGIN and the reservations (reserveGroup),
   * `write` with the accepted batches' rows, COMMIT; ROLLBACK on any error. The rows are the
   * group's own columns when no batch was refused, else columns made without the refused ones
   * (rare), whose parameters or data `write` then builds again.
   */
  private async reserveAndWrite(group: ConversionGroup, write: (client: pg.PoolClient, rows: ConversionColumns, results: WriteResult[]) => Promise<void>): Promise<WriteResult[]> {
    const client = await this.pool.connect();
    try {
      const { results, accepted } = await reserveGroup(client, group);
      await write(client, acceptedColumns(group, accepted), results);
      await client.query("COMMIT");
      return results;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  /**
   * A group of one batch, or whose batches are one tenant's, for one month under one limit (one
   * tenant's GETs: the usual group under load), written as one batch: one statement instead of
   * three round trips. Each batch's `used` then counts the batches before it, as written batch by
   * batch. null when they are not one tenant's, or are several that do not all fit: the group is
   * then written batch by batch (the refused statement changed nothing but saving the group's new
   * parts, which are content-addressed).
   */
  private async writeAsOneBatch(group: ConversionGroup, slice?: TimeSlice, sent?: () => void): Promise<WriteResult[] | null> {
    const [first, ...rest] = group.batches;
    if (!rest.every((b) => sameQuota(first!, b))) return null;
    const rows = group.rows.project.length;
    const whole = await this.writeOneBatch({ ...group, batches: [{ ...first!, start: 0, end: rows }] }, slice, sent);
    // one batch refused is refused; several may still fit one by one
    if (!whole.accepted) return rest.length ? null : [whole];
    return group.batches.map((batch, i) => {
      const result: WriteResult = { accepted: true, used: whole.used - (rows - batch.end) };
      if (i === 0 && whole.dimensionIds) result.dimensionIds = whole.dimensionIds;
      return result;
    });
  }

  /**
   * A group as one batch (writeAsOneBatch: a GET's row written beside a bulk, one tenant's GETs,
   * a small bulk): the reservation, the numbering, a light group's new location and network rows
   * and the rows in one statement, its own transaction. One round trip instead of three, and no
   * client held across them.
   */
  private async writeOneBatch(group: ConversionGroup, slice?: TimeSlice, sent?: () => void): Promise<WriteResult> {
    const batch = group.batches[0]!;
    const params = await insertParams(group.rows, NUMBERED_IN_SQL, slice);
    const dims = group.newDimensions && (await dimensionParams(group.newDimensions, slice));
    const written = this.autocommit(insertOneBatchSql(batch, !!dims), dims ? [...params, ...dims] : params);
    sent?.();
    const reply = (await written).rows[0] as ReserveReply & DimensionIdsReply;
    const result: WriteResult = numberRows(group, batch, reply);
    if (dims) result.dimensionIds = dimensionIds(reply);
    return result;
  }

  conversionByUid(project: number, uniqueId: string): Promise<ConversionRow | undefined> {
    return this.row<ConversionRow>(`SELECT ${CONVERSION_COLUMNS} FROM conversions c ${CONVERSION_JOINS} WHERE c.unique_id = $1 AND c.project = $2`, [
      uniqueId,
      project,
    ]);
  }

  conversionsByUids(project: number, uniqueIds: string[]): Promise<ConversionRow[]> {
    return this.rows<ConversionRow>(
      `SELECT ${CONVERSION_COLUMNS} FROM conversions c ${CONVERSION_JOINS} WHERE c.unique_id = ANY($1::uuid[]) AND c.project = $2`,
      [uniqueIds, project],
    );
  }

  async countConversions(project: number, plan: IpSearchPlan | null): Promise<{ projectRows: number; matches: number }> {
    const projectRows = "(SELECT COALESCE(SUM(used), 0) FROM usage WHERE project = $1)::integer";
    if (!plan) {
      const { rows } = (await this.row<{ rows: number }>(`SELECT ${projectRows} AS rows`, [project]))!;
      return { projectRows: rows, matches: rows };
    }
    // The scans are disjoint, so their counts add up (index-only where no text check is needed).
    const count = statement(project);
    const counts = plan.scans.map((scan) => `(SELECT count(*) FROM conversions c WHERE c.project = $1 AND ${scanSql(scan, plan.text, count.bind, true)})`);
    const counted = (await this.row<{ n: number; rows: number }>(`SELECT (${counts.join(" + ")})::integer AS n, ${projectRows} AS rows`, count.params))!;
    return { projectRows: counted.rows, matches: counted.n };
  }

  async listPage(project: number, source: PageSource, limit: number, offset: number, before?: number): Promise<ConversionRow[]> {
    const page = statement(project);
    const older = before === undefined ? "" : ` AND c.id < ${page.bind(before)}`;
    let ids: string;
    if (source.kind === "matches") {
      const { plan } = source;
      const scans = plan.scans.map((scan) => `SELECT c.id FROM conversions c WHERE c.project = $1${older} AND ${scanSql(scan, plan.text, page.bind, true)}`);
      ids = `SELECT id FROM (${scans.join(" UNION ALL ")}) m`;
    } else {
      const filter = source.filter;
      ids = `SELECT c.id FROM conversions c WHERE c.project = $1${older}`;
      if (filter && "text" in filter) ids += ` AND c.ip >= ${page.bind(filter.text.from)} AND c.ip < ${page.bind(filter.text.to)}`;
      else if (filter) ids += ` AND ${scanSql({ key: filter.key, checkText: false }, null, page.bind, false)}`;
    }
    // The page's ids first (index-only for the ip filters), then only those rows with their
    // joins, so a sort never carries whole rows.
    return this.rows<ConversionRow>(
      `WITH page AS (${ids} ORDER BY id DESC LIMIT ${limit | 0} OFFSET ${offset | 0})
       SELECT ${CONVERSION_COLUMNS} FROM page JOIN conversions c ON c.project = $1 AND c.id = page.id ${CONVERSION_JOINS}
       ORDER BY c.id DESC`,
      page.params,
    );
  }
}

/** A statement's parameters: the project is $1, each bound value gets the next number. */
function statement(project: number) {
  const params: unknown[] = [project];
  return { params, bind: (value: unknown): string => `$${params.push(value)}` };
}

/**
 * Every block of the ip_key index (migration 6) from the project's first row to its last, each
 * end one probe of the (project, id) index: a key range is sought once per block.
 */
const PROJECT_BLOCKS = `ARRAY(SELECT generate_series(
    (SELECT min(id) FROM conversions WHERE project = $1) >> ${IP_KEY_BLOCK_BITS},
    (SELECT max(id) FROM conversions WHERE project = $1) >> ${IP_KEY_BLOCK_BITS}))`;

/**
 * One scan of an ipSearch plan as a condition: an ip_key range (index conversions_ip_key, sought
 * in each of the project's blocks when `inBlocks`; a walk over the project's rows checks the
 * range row by row instead), or the rows without a key (partial index conversions_ip_unkeyed),
 * with the text check where the key range alone may hold non-matches.
 */
function scanSql(scan: IpScan, text: IpSearchPlan["text"], bind: (value: unknown) => string, inBlocks: boolean): string {
  const range = scan.key && `c.ip_key >= ${bind(Buffer.from(scan.key.first))} AND c.ip_key <= ${bind(Buffer.from(scan.key.last))}`;
  const key = !range ? "c.ip_key IS NULL" : inBlocks ? `(c.id >> ${IP_KEY_BLOCK_BITS}) = ANY(${PROJECT_BLOCKS}) AND ${range}` : range;
  return scan.checkText && text ? `${key} AND c.ip >= ${bind(text.from)} AND c.ip < ${bind(text.to)}` : key;
}

const PERIOD = /^\d{4}-\d{2}$/;

/** What a batch's reservation answers (reserveSql): the quota used after it (null: refused), before it, and the project's last row number. */
type ReserveReply = { reserved: number | null; current: number | null; last_id: number | null };

/**
 * BEGIN and every batch's reservation (each still one atomic statement) in one round trip, the
 * accepted batches' rows numbered. Quota rows are locked in one global order (project, period),
 * so two servers' groups cannot deadlock on them.
 */
async function reserveGroup(client: pg.PoolClient, group: ConversionGroup): Promise<{ results: WriteResult[]; accepted: boolean[] }> {
  const { batches } = group;
  const order = batches.map((_, i) => i).sort((a, b) => batches[a]!.project - batches[b]!.project || cmp(batches[a]!.period, batches[b]!.period));
  const replies = (await client.query(["BEGIN", ...order.map((i) => reserveSql(batches[i]!))].join(";\n"))) as unknown as pg.QueryResult[];
  const results: WriteResult[] = new Array(batches.length);
  const accepted: boolean[] = new Array(batches.length);
  order.forEach((i, position) => {
    const batch = batches[i]!;
    const reply = replies[position + 1]!.rows[0] as ReserveReply;
    accepted[i] = reply.reserved !== null;
    results[i] = numberRows(group, batch, reply);
  });
  return { results, accepted };
}

/** The reservation's result; an accepted batch's rows get their numbers, the last one `last_id`. */
function numberRows(group: ConversionGroup, batch: GroupBatch, reply: ReserveReply): CommitResult {
  if (reply.reserved === null) return { accepted: false, used: reply.current ?? 0 };
  let seq = Number(reply.last_id) - (batch.end - batch.start);
  for (let row = batch.start; row < batch.end; row++) group.rows.seq[row] = ++seq;
  return { accepted: true, used: reply.reserved };
}

/**
 * A batch's quota reservation as one statement: `reserved` is the new count when the batch fits
 * (used + n <= limit), else null and nothing changed; `current` is the count before it; `last_id`
 * the project's last conversion id once the batch's n are numbered (the project row is locked
 * with the usage row, so ids stay unique across servers). Values are inlined (checked integers
 * and a checked period) so several of these travel in one query. `tail` adds CTEs after `r` and
 * `numbered` (insertOneBatchSql's insert), `replyTail` columns to the reply.
 */
function reserveSql(batch: GroupBatch, tail = "", replyTail = ""): string {
  const { project, limit, period } = batch;
  const n = batch.end - batch.start;
  if (!Number.isSafeInteger(project) || !Number.isSafeInteger(n) || (limit !== null && !Number.isSafeInteger(limit))) {
    throw new Error("Invalid quota reservation");
  }
  if (!PERIOD.test(period)) throw new Error(`Invalid period ${period}`);
  const fits = limit === null ? "true" : `u.used + EXCLUDED.used <= ${limit}`;
  return `WITH r AS (
      INSERT INTO usage AS u (project, period, used) SELECT ${project}, '${period}', ${n} WHERE ${limit === null ? "true" : `${n} <= ${limit}`}
      ON CONFLICT (project, period) DO UPDATE SET used = u.used + EXCLUDED.used WHERE ${fits}
      RETURNING used),
    numbered AS (UPDATE projects SET conversions = conversions + ${n} WHERE seq = ${project} AND EXISTS (SELECT 1 FROM r) RETURNING conversions)${tail}
    SELECT (SELECT used FROM r) AS reserved, (SELECT used FROM usage WHERE project = ${project} AND period = '${period}') AS current,
      (SELECT conversions FROM numbered) AS last_id${replyTail}`;
}

/**
 * reserveSql with the batch's rows inserted when it is accepted, numbered in their order as
 * numberRows numbers them; `withDimensions`: and the group's newDimensions saved (newDimensionsSql).
 */
function insertOneBatchSql(batch: GroupBatch, withDimensions = false): string {
  const n = batch.end - batch.start;
  const columns = NUMBERED_IN_SQL;
  const dims = newDimensionsSql(withDimensions, columns.length);
  const inserted = `${dims.ctes ? `,\n    ${dims.ctes}` : ""},
    inserted AS (INSERT INTO conversions (${columns.join(", ")}, seq)
      SELECT ${columns.map(dims.value).join(", ")}, (SELECT conversions FROM numbered) - ${n} + t.ord
      FROM unnest(${columns.map((name, i) => `$${i + 1}::${COLUMN_TYPES[name]}[]`).join(", ")}) WITH ORDINALITY AS t(${columns.join(", ")}, ord)
      WHERE EXISTS (SELECT 1 FROM numbered))`;
  return reserveSql(batch, inserted, dims.ids ? `, ${dims.ids}` : "");
}

/** the rows of a group's accepted batches, numbered already; `withDimensions`: and the group's newDimensions saved */
function insertConversionsSql(withDimensions: boolean): string {
  const dims = newDimensionsSql(withDimensions, COLUMN_NAMES.length);
  const insert = `INSERT INTO conversions (${COLUMN_NAMES.join(", ")})
    SELECT ${COLUMN_NAMES.map(dims.value).join(", ")}
    FROM unnest(${COLUMN_NAMES.map((name, i) => `$${i + 1}::${COLUMN_TYPES[name]}[]`).join(", ")}) AS t(${COLUMN_NAMES.join(", ")})`;
  return withDimensions ? `WITH ${dims.ctes}, inserted AS (${insert}) SELECT ${dims.ids}` : insert;
}

/**
 * What a statement that writes rows adds to save the group's newDimensions (their four array
 * parameters after the `after` column parameters: locations' hashes and json, networks' hashes and
 * json): the CTEs, each row's location and network with its placeholder replaced by the part's
 * id, and the ids for the reply (DimensionIdsReply). Without them: the columns as they are.
 */
function newDimensionsSql(withDimensions: boolean, after: number) {
  if (!withDimensions) return { ctes: "", value: (name: string) => `t.${name}`, ids: "" };
  const at = (i: number) => `$${after + i}`;
  const alias = (name: string) => (name === "location" ? "nl" : "nn");
  return {
    ctes: `${saveDimensionsSql("locations", "nl", at(1), at(2))},\n    ${saveDimensionsSql("networks", "nn", at(3), at(4))}`,
    value: (name: string) =>
      name === "location" || name === "network" ? `CASE WHEN t.${name} < 0 THEN (SELECT id FROM ${alias(name)}_ids WHERE ord = -t.${name}) ELSE t.${name} END` : `t.${name}`,
    ids: "(SELECT array_agg(id ORDER BY ord) FROM nl_ids) AS location_ids, (SELECT array_agg(id ORDER BY ord) FROM nn_ids) AS network_ids",
  };
}

type DimensionIdsReply = { location_ids: number[] | null; network_ids: number[] | null };

const dimensionIds = (reply: DimensionIdsReply): Record<DimensionTable, number[]> => ({ locations: reply.location_ids ?? [], networks: reply.network_ids ?? [] });

/** newDimensionsSql's four parameters */
async function dimensionParams(dims: Record<DimensionTable, SavedPart[]>, slice?: TimeSlice): Promise<string[]> {
  const [locationHashes, networkHashes] = await arrayLiterals([dims.locations.map((d) => d.key), dims.networks.map((d) => d.key)], slice);
  return [locationHashes!, partTexts(dims.locations), networkHashes!, partTexts(dims.networks)];
}

/**
 * The parts' JSON texts as one text, U+0001 between two, which saveDimensionsSql splits with
 * `string_to_array`: JSON text never holds that character raw, where a text[] literal would escape
 * every quote of every text, and a JSON array of them would be parsed (docs/storage.md "Group commit").
 */
function partTexts(dims: readonly SavedPart[]): string {
  // a text that held one would shift every text after it onto another part's hash
  if (dims.some((d) => d.json.includes(PART_TEXT_SEPARATOR))) throw new Error("A part's text holds U+0001, which separates the texts saved");
  return dims.map((d) => d.json).join(PART_TEXT_SEPARATOR);
}

/** chr(1) in saveDimensionsSql */
const PART_TEXT_SEPARATOR = "\u0001";

/**
 * CTEs saving parts (content-addressed) from two parameters, the hashes as an array of their hex
 * (Dimension.key) and the texts as one text (partTexts): `alias` the rows inserted or already there, `alias_ids`
 * their ids by position (`ord`, from 1) in the arrays. DO UPDATE, not
 * DO NOTHING, so a part another transaction commits while this statement waits on it comes back
 * too: DO NOTHING would skip it, and this statement's snapshot could not read it. The cost: a part
 * already saved but not in this process's cache (after a restart) is written once more.
 */
function saveDimensionsSql(table: DimensionTable, alias: string, hashes: string, jsons: string): string {
  return `${alias} AS (INSERT INTO ${table} (hash, json) SELECT decode(h.hash, 'hex'), j.json
        FROM unnest(${hashes}::text[]) WITH ORDINALITY AS h(hash, ord) JOIN unnest(string_to_array(${jsons}::text, chr(1))) WITH ORDINALITY AS j(json, ord) USING (ord)
      ON CONFLICT (hash) DO UPDATE SET json = EXCLUDED.json RETURNING id, hash),
    ${alias}_ids AS (SELECT ${alias}.id, d.ord FROM unnest(${hashes}::text[]) WITH ORDINALITY AS d(hash, ord) JOIN ${alias} ON ${alias}.hash = decode(d.hash, 'hex'))`;
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The conversions columns and their types: one INSERT … SELECT FROM unnest(…) of arrays of them, or one COPY, for all rows of a group. */
export const COLUMN_TYPES: Record<keyof ConversionColumns, CopyType> = {
  project: "integer",
  unique_id: "uuid",
  status: "smallint",
  ip: "text",
  ip_key: "bytea",
  started_at: "bigint",
  completed_ms: "integer",
  created_ms: "integer",
  location: "integer",
  network: "integer",
  tz_offset: "smallint",
  time_shift: "integer",
  completion_us: "bigint",
  extra: "text",
  seq: "bigint",
};
/** the columns of a row's location and network ids */
const DIMENSION_COLUMNS = ["location", "network"] as const;
/** every column but the row number, which is known only once the quota is reserved (insertOneBatchSql works it out in SQL) */
const NUMBERED_IN_SQL = (Object.keys(COLUMN_TYPES) as Array<keyof ConversionColumns>).filter((name) => name !== "seq");
/** the row number last: a group's other columns are built before its transaction */
export const COLUMN_NAMES = [...NUMBERED_IN_SQL, "seq" as const];
const INSERT_CONVERSIONS = insertConversionsSql(false);
const INSERT_CONVERSIONS_WITH_DIMENSIONS = insertConversionsSql(true);
const COPY_CONVERSIONS = `COPY conversions (${COLUMN_NAMES.join(", ")}) FROM STDIN (FORMAT binary)`;
/** PostgreSQL's SQLSTATE for a transaction it ended to break a deadlock */
const DEADLOCK_DETECTED = "40P01";
/** how often an autocommit statement is tried when each try is a deadlock's victim */
const AUTOCOMMIT_TRIES = 3;
/**
 * Groups of this many rows or more, without new parts, go as COPY data (writeByCopy): at 5000 rows
 * it took ~40% less time than the unnest insert, at 1000 ~15%; smaller groups (a GET's, one round
 * trip for all) keep the single statement (docs/storage.md "Group commit").
 */
export const COPY_FROM_ROWS = 1000;

/** the columns as array literals, in time slices (array-literal.ts) */
function insertParams(rows: ConversionColumns, names = COLUMN_NAMES, slice?: TimeSlice): Promise<string[]> {
  return arrayLiterals(names.map((name) => rows[name] as readonly ArrayElement[]), slice);
}
