/**
 * PostgreSQL store (issue #6): the same interface, tables and compact records as SQLite, shared
 * by several servers. Group commit writes one transaction per group: one quota upsert per batch
 * (row-locked, so exact across servers) and one multi-row insert (unnest of arrays) for all
 * accepted rows.
 */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import type { Plan } from "../../../lib/schemas/api.js";
import { GroupCommitQueue } from "../group-commit.js";
import { ipSearchPlan, type IpScan, type IpSearchPlan } from "../ip-prefix.js";
import { pendingMigrations } from "../migrations.js";
import { encodeConversions, STATUS_CODES, type Dimension, type EncodedRecord } from "../record-codec.js";
import {
  CONVERSION_COLUMNS,
  CONVERSION_JOINS,
  inRequestOrder,
  isUuid,
  preferIpIndex,
  toConversion,
  toKey,
  toProject,
  toWebsite,
  type ConversionRow,
  type KeyRow,
  type ProjectRow,
  type WebsiteRow,
} from "../rows.js";
import type {
  ApiKey,
  CommitResult,
  ConversionBatch,
  KeyAuth,
  KeyKind,
  ListQuery,
  ListResult,
  Project,
  Storage,
  StoredConversion,
  Website,
} from "../types.js";
import { connectPostgres, type PostgresConnection, type PostgresOptions } from "./connect.js";
import { POSTGRES_MIGRATIONS } from "./migrations.js";

interface PendingBatch {
  batch: ConversionBatch;
  records: EncodedRecord[];
}

/** Moves the change counter in the same statement as the change it follows. */
const BUMP = "bump AS (UPDATE change_counter SET version = version + 1 WHERE id = 1 AND EXISTS (SELECT 1 FROM changed))";

export async function openPostgres(options: PostgresOptions): Promise<PostgresStorage> {
  const connection = await connectPostgres(options);
  const storage = new PostgresStorage(connection);
  try {
    await storage.migrate();
  } catch (error) {
    await connection.pool.end().catch(() => {});
    throw error;
  }
  return storage;
}

export class PostgresStorage implements Storage {
  readonly kind = "postgres" as const;
  readonly pool: pg.Pool;
  private readonly schema: string;
  private readonly queue: GroupCommitQueue<PendingBatch, CommitResult>;
  private readonly projectSeqs = new Map<string, number>();
  private readonly dimensionIds = { locations: new Map<string, number>(), networks: new Map<string, number>() };

  constructor(connection: PostgresConnection) {
    this.pool = connection.pool;
    this.schema = connection.schema;
    this.queue = new GroupCommitQueue((items) => this.writeGroup(items), {
      weigh: (item) => (item as PendingBatch).records.length,
    });
  }

  private async rows<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return (await this.pool.query(sql, params)).rows as T[];
  }

  private async transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      const result = await work(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  /** Several servers may start at once: an advisory lock lets one migrate while the others wait. */
  async migrate(): Promise<void> {
    await this.transaction(async (client) => {
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
    });
  }

  async close(): Promise<void> {
    await this.queue.drain();
    await this.pool.end();
  }

  async changeVersion(): Promise<number> {
    const [row] = await this.rows<{ version: number }>("SELECT version FROM change_counter WHERE id = 1");
    return row!.version;
  }

  // ---- projects

  async createProject(input: { name: string; plan: Plan }): Promise<Project> {
    const [row] = await this.rows<ProjectRow>(
      `WITH changed AS (INSERT INTO projects (id, name, plan, created_at) VALUES ($1, $2, $3, $4) RETURNING *), ${BUMP}
       SELECT * FROM changed`,
      [randomUUID(), input.name, input.plan, Date.now()],
    );
    return toProject(row!);
  }

  async getProject(id: string): Promise<Project | null> {
    const [row] = await this.rows<ProjectRow>("SELECT * FROM projects WHERE id = $1", [id]);
    return row ? toProject(row) : null;
  }

  async listProjects(): Promise<Project[]> {
    return (await this.rows<ProjectRow>("SELECT * FROM projects ORDER BY seq")).map(toProject);
  }

  async setPlan(projectId: string, plan: Plan): Promise<Project | null> {
    const [row] = await this.rows<ProjectRow>(
      `WITH changed AS (UPDATE projects SET plan = $2 WHERE id = $1 RETURNING *), ${BUMP} SELECT * FROM changed`,
      [projectId, plan],
    );
    return row ? toProject(row) : null;
  }

  // ---- keys

  async createKey(input: {
    projectId: string;
    name: string;
    kind: KeyKind;
    hash: string;
    prefix: string;
    websiteId?: string | null;
  }): Promise<ApiKey> {
    const [row] = await this.rows<KeyRow>(
      `WITH changed AS (
         INSERT INTO api_keys (id, project_id, name, kind, hash, prefix, website_id, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *), ${BUMP}
       SELECT * FROM changed`,
      [randomUUID(), input.projectId, input.name, input.kind, input.hash, input.prefix, input.websiteId ?? null, Date.now()],
    );
    return toKey(row!);
  }

  async listKeys(projectId: string): Promise<ApiKey[]> {
    return (await this.rows<KeyRow>("SELECT * FROM api_keys WHERE project_id = $1 ORDER BY created_at, id", [projectId])).map(toKey);
  }

  async getKey(keyId: string): Promise<ApiKey | null> {
    const [row] = await this.rows<KeyRow>("SELECT * FROM api_keys WHERE id = $1", [keyId]);
    return row ? toKey(row) : null;
  }

  async findKeyByHash(hash: string): Promise<KeyAuth | null> {
    const [row] = await this.rows<KeyRow & { p: ProjectRow; w: WebsiteRow | null }>(
      `SELECT k.*, row_to_json(p) AS p, row_to_json(w) AS w
       FROM api_keys k JOIN projects p ON p.id = k.project_id
       LEFT JOIN websites w ON w.id = k.website_id AND w.removed_at IS NULL
       WHERE k.hash = $1 AND k.revoked_at IS NULL`,
      [hash],
    );
    if (!row) return null;
    // A public key whose website was removed is dead.
    if (row.kind === "public" && !row.w) return null;
    return { key: toKey(row), project: toProject(row.p), website: row.w ? toWebsite(row.w) : null };
  }

  async rollKey(keyId: string, hash: string, prefix: string): Promise<ApiKey | null> {
    const [row] = await this.rows<KeyRow>(
      `WITH changed AS (UPDATE api_keys SET hash = $2, prefix = $3 WHERE id = $1 AND revoked_at IS NULL RETURNING *), ${BUMP}
       SELECT * FROM changed`,
      [keyId, hash, prefix],
    );
    return row ? toKey(row) : null;
  }

  async revokeKey(keyId: string): Promise<ApiKey | null> {
    const [row] = await this.rows<KeyRow>(
      `WITH changed AS (UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING *), ${BUMP}
       SELECT * FROM changed`,
      [keyId, Date.now()],
    );
    return row ? toKey(row) : null;
  }

  async touchKeys(uses: Array<{ keyId: string; at: number }>): Promise<void> {
    if (!uses.length) return;
    await this.pool.query(
      `UPDATE api_keys k SET last_used_at = u.at FROM unnest($1::text[], $2::bigint[]) AS u(id, at)
       WHERE k.id = u.id AND (k.last_used_at IS NULL OR k.last_used_at < u.at)`,
      [uses.map((u) => u.keyId), uses.map((u) => u.at)],
    );
  }

  // ---- websites

  async createWebsite(input: { projectId: string; origin: string }): Promise<Website> {
    const [row] = await this.rows<WebsiteRow>(
      `WITH changed AS (INSERT INTO websites (id, project_id, origin, created_at) VALUES ($1, $2, $3, $4) RETURNING *), ${BUMP}
       SELECT * FROM changed`,
      [randomUUID(), input.projectId, input.origin, Date.now()],
    );
    return toWebsite(row!);
  }

  async listWebsites(projectId: string): Promise<Website[]> {
    const rows = await this.rows<WebsiteRow>(
      "SELECT * FROM websites WHERE project_id = $1 AND removed_at IS NULL ORDER BY created_at, id",
      [projectId],
    );
    return rows.map(toWebsite);
  }

  async getWebsite(websiteId: string): Promise<Website | null> {
    const [row] = await this.rows<WebsiteRow>("SELECT * FROM websites WHERE id = $1 AND removed_at IS NULL", [websiteId]);
    return row ? toWebsite(row) : null;
  }

  /** Removes the website and revokes its public keys in one statement. */
  async removeWebsite(websiteId: string): Promise<Website | null> {
    const [row] = await this.rows<WebsiteRow>(
      `WITH changed AS (UPDATE websites SET removed_at = $2 WHERE id = $1 AND removed_at IS NULL RETURNING *),
       revoked AS (UPDATE api_keys SET revoked_at = $2 WHERE website_id IN (SELECT id FROM changed) AND revoked_at IS NULL),
       ${BUMP}
       SELECT * FROM changed`,
      [websiteId, Date.now()],
    );
    return row ? toWebsite(row) : null;
  }

  // ---- conversions

  async commitConversions(batch: ConversionBatch): Promise<CommitResult> {
    return this.queue.submitWhenReady(encodeConversions(batch.conversions).then((records) => ({ batch, records })));
  }

  private async writeGroup(items: PendingBatch[]): Promise<CommitResult[]> {
    const projects = await Promise.all(items.map((item) => this.requireProjectSeq(item.batch.projectId)));
    // Deduplicated parts are content-addressed, so they are written outside the transaction:
    // a row left over from a refused batch is harmless, and no lock on them is held for long.
    const records = items.flatMap((item) => item.records);
    const locationIds = await this.dimensionIdsFor("locations", records.map((r) => r.location));
    const networkIds = await this.dimensionIdsFor("networks", records.map((r) => r.network));

    // Quota rows are locked in one global order (project, period), so two servers' groups
    // cannot deadlock on them.
    const order = items.map((_, i) => i).sort((a, b) => projects[a]! - projects[b]! || cmp(items[a]!.batch.period, items[b]!.batch.period));
    const createdAt = Date.now();
    const client = await this.pool.connect();
    try {
      // One round trip for BEGIN and every batch's reservation (still one atomic statement per
      // batch), one for the rows, one for COMMIT: a group costs the same whatever its size.
      const replies = (await client.query(["BEGIN", ...order.map((i) => reserveSql(projects[i]!, items[i]!.batch))].join(";\n"))) as unknown as pg.QueryResult[];
      const results: CommitResult[] = new Array(items.length);
      const rows = new ConversionColumns();
      order.forEach((i, position) => {
        const { batch, records } = items[i]!;
        const reply = replies[position + 1]!.rows[0] as { reserved: number | null; current: number | null; last_id: number | null };
        if (reply.reserved === null) {
          results[i] = { accepted: false, used: reply.current ?? 0 };
          return;
        }
        results[i] = { accepted: true, used: reply.reserved };
        const firstId = Number(reply.last_id) - batch.conversions.length + 1;
        batch.conversions.forEach((conversion, j) => {
          const record = records[j]!;
          rows.add(conversion, record, projects[i]!, createdAt, locationIds.get(key(record.location))!, networkIds.get(key(record.network))!, firstId + j);
        });
      });
      if (rows.count) await client.query(rows.sql(), rows.params());
      await client.query("COMMIT");
      return results;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  private async dimensionIdsFor(table: "locations" | "networks", dims: Dimension[]): Promise<Map<string, number>> {
    const known = this.dimensionIds[table];
    const missing = new Map<string, Dimension>();
    for (const dim of dims) if (!known.has(key(dim))) missing.set(key(dim), dim);
    if (missing.size) {
      // Sorted, so two servers inserting the same new parts lock them in the same order.
      const fresh = [...missing.values()].sort((a, b) => Buffer.compare(a.hash, b.hash));
      const hashes = fresh.map((d) => d.hash);
      await this.pool.query(
        `INSERT INTO ${table} (hash, json) SELECT * FROM unnest($1::bytea[], $2::text[]) ON CONFLICT (hash) DO NOTHING`,
        [hashes, fresh.map((d) => d.json)],
      );
      const found = await this.rows<{ id: number; hash: Buffer }>(`SELECT id, hash FROM ${table} WHERE hash = ANY($1::bytea[])`, [hashes]);
      for (const row of found) known.set(row.hash.toString("base64"), row.id);
    }
    return known;
  }

  private async requireProjectSeq(projectId: string): Promise<number> {
    const seq = await this.projectSeq(projectId);
    if (seq === null) throw new Error(`Unknown project ${projectId}`);
    return seq;
  }

  private async projectSeq(projectId: string): Promise<number | null> {
    let seq = this.projectSeqs.get(projectId);
    if (seq === undefined) {
      const [row] = await this.rows<{ seq: number }>("SELECT seq FROM projects WHERE id = $1", [projectId]);
      if (!row) return null;
      seq = row.seq;
      this.projectSeqs.set(projectId, seq);
    }
    return seq;
  }

  async usage(projectId: string, period: string): Promise<number> {
    const [row] = await this.rows<{ used: number }>(
      "SELECT u.used FROM usage u JOIN projects p ON p.seq = u.project WHERE p.id = $1 AND u.period = $2",
      [projectId, period],
    );
    return row?.used ?? 0;
  }

  async getConversion(projectId: string, uniqueId: string): Promise<StoredConversion | null> {
    if (!isUuid(uniqueId)) return null;
    const project = await this.projectSeq(projectId);
    if (project === null) return null;
    const [row] = await this.rows<ConversionRow>(
      `SELECT ${CONVERSION_COLUMNS} FROM conversions c ${CONVERSION_JOINS} WHERE c.unique_id = $1 AND c.project = $2`,
      [uniqueId, project],
    );
    return row ? toConversion(row) : null;
  }

  async getConversions(projectId: string, uniqueIds: string[]): Promise<StoredConversion[]> {
    const ids = [...new Set(uniqueIds.filter(isUuid).map((id) => id.toLowerCase()))];
    const project = await this.projectSeq(projectId);
    if (project === null || !ids.length) return [];
    const rows = await this.rows<ConversionRow>(
      `SELECT ${CONVERSION_COLUMNS} FROM conversions c ${CONVERSION_JOINS} WHERE c.unique_id = ANY($1::uuid[]) AND c.project = $2`,
      [ids, project],
    );
    return inRequestOrder(uniqueIds, rows.map(toConversion));
  }

  async listConversions(query: ListQuery): Promise<ListResult> {
    const project = await this.projectSeq(query.projectId);
    if (project === null) return { conversions: [], totalCount: 0 };
    const plan = ipSearchPlan(query.ip);
    // Each statement binds its own values after the project ($1).
    const statement = () => {
      const params: unknown[] = [project];
      return { params, bind: (value: unknown): string => `$${params.push(value)}` };
    };
    const page = statement();
    // the page's ids, newest first once ordered
    let ids = "SELECT c.id FROM conversions c WHERE c.project = $1";
    let totalCount: number;
    if (!plan) {
      // Unfiltered, the count is the sum of the quota counters (rows and counts commit together).
      const [counted] = await this.rows<{ n: number }>("SELECT COALESCE(SUM(used), 0)::integer AS n FROM usage WHERE project = $1", page.params);
      totalCount = counted!.n;
    } else {
      // The scans are disjoint, so their counts add up (index-only where no text check is needed).
      const count = statement();
      const counts = plan.scans.map((scan) => `(SELECT count(*) FROM conversions c WHERE c.project = $1 AND ${scanSql(scan, plan.text, count.bind)})`);
      const [counted] = await this.rows<{ n: number; rows: number }>(
        `SELECT (${counts.join(" + ")})::integer AS n, (SELECT COALESCE(SUM(used), 0) FROM usage WHERE project = $1)::integer AS rows`,
        count.params,
      );
      totalCount = counted!.n;
      // As on SQLite: few matches are taken from the ip indexes and sorted; many are met sooner
      // by walking the project's rows newest first with the filter as a row condition.
      if (preferIpIndex(totalCount, counted!.rows, query.offset, query.limit)) {
        const scans = plan.scans.map((scan) => `SELECT c.id FROM conversions c WHERE c.project = $1 AND ${scanSql(scan, plan.text, page.bind)}`);
        ids = `SELECT id FROM (${scans.join(" UNION ALL ")}) m`;
      } else {
        const text = plan.text;
        ids += ` AND ${text ? `c.ip >= ${page.bind(text.from)} AND c.ip < ${page.bind(text.to)}` : scanSql(plan.scans[0]!, null, page.bind)}`;
      }
    }
    if (totalCount <= query.offset) return { conversions: [], totalCount };
    // The page's ids first (index-only for the ip filters), then only those rows with their
    // joins, so a sort never carries whole rows.
    const rows = await this.rows<ConversionRow>(
      `WITH page AS (${ids} ORDER BY id DESC LIMIT ${query.limit | 0} OFFSET ${query.offset | 0})
       SELECT ${CONVERSION_COLUMNS} FROM page JOIN conversions c ON c.project = $1 AND c.id = page.id ${CONVERSION_JOINS}
       ORDER BY c.id DESC`,
      page.params,
    );
    return { conversions: rows.map(toConversion), totalCount };
  }
}

/**
 * One scan of an ipSearch plan as a condition: an ip_key range (index conversions_ip_key), or
 * the rows without a key (partial index conversions_ip_unkeyed), with the text check where the
 * key range alone may hold non-matches.
 */
function scanSql(scan: IpScan, text: IpSearchPlan["text"], bind: (value: unknown) => string): string {
  const key = scan.key
    ? `c.ip_key >= ${bind(Buffer.from(scan.key.first))} AND c.ip_key <= ${bind(Buffer.from(scan.key.last))}`
    : "c.ip_key IS NULL";
  return scan.checkText && text ? `${key} AND c.ip >= ${bind(text.from)} AND c.ip < ${bind(text.to)}` : key;
}

const key = (dim: Dimension): string => dim.key;

const PERIOD = /^\d{4}-\d{2}$/;

/**
 * A batch's quota reservation as one statement: `reserved` is the new count when the batch fits
 * (used + n <= limit), else null and nothing changed; `current` is the count before it; `last_id`
 * the project's last conversion id once the batch's n are numbered (the project row is locked
 * with the usage row, so ids stay unique across servers). Values
 * are inlined (checked integers and a checked period) so several of these travel in one query.
 */
function reserveSql(project: number, batch: ConversionBatch): string {
  const n = batch.conversions.length;
  const limit = batch.limit;
  if (!Number.isSafeInteger(project) || !Number.isSafeInteger(n) || (limit !== null && !Number.isSafeInteger(limit))) {
    throw new Error("Invalid quota reservation");
  }
  if (!PERIOD.test(batch.period)) throw new Error(`Invalid period ${batch.period}`);
  const fits = limit === null ? "true" : `u.used + EXCLUDED.used <= ${limit}`;
  return `WITH r AS (
      INSERT INTO usage AS u (project, period, used) SELECT ${project}, '${batch.period}', ${n} WHERE ${limit === null ? "true" : `${n} <= ${limit}`}
      ON CONFLICT (project, period) DO UPDATE SET used = u.used + EXCLUDED.used WHERE ${fits}
      RETURNING used),
    numbered AS (UPDATE projects SET conversions = conversions + ${n} WHERE seq = ${project} AND EXISTS (SELECT 1 FROM r) RETURNING conversions)
    SELECT (SELECT used FROM r) AS reserved, (SELECT used FROM usage WHERE project = ${project} AND period = '${batch.period}') AS current,
      (SELECT conversions FROM numbered) AS last_id`;
}
const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Accepted rows of a group as column arrays: one INSERT … SELECT FROM unnest(…) for all. */
class ConversionColumns {
  private readonly columns = {
    project: [] as number[],
    unique_id: [] as string[],
    status: [] as number[],
    ip: [] as Array<string | null>,
    ip_key: [] as Array<Buffer | null>,
    started_at: [] as number[],
    completed_ms: [] as number[],
    created_ms: [] as number[],
    location: [] as number[],
    network: [] as number[],
    tz_offset: [] as Array<number | null>,
    time_shift: [] as number[],
    completion_us: [] as Array<number | null>,
    extra: [] as Array<string | null>,
    seq: [] as number[],
  };
  private static readonly TYPES: Record<string, string> = {
    project: "integer", unique_id: "uuid", status: "smallint", ip: "text", ip_key: "bytea", started_at: "bigint",
    completed_ms: "integer", created_ms: "integer", location: "integer", network: "integer", tz_offset: "smallint",
    time_shift: "integer", completion_us: "bigint", extra: "text", seq: "bigint",
  };

  get count(): number {
    return this.columns.project.length;
  }

  add(conversion: ConversionBatch["conversions"][number], record: EncodedRecord, project: number, createdAt: number, location: number, network: number, seq: number): void {
    const c = this.columns;
    c.project.push(project);
    c.unique_id.push(conversion.uniqueId);
    c.status.push(STATUS_CODES[conversion.status]);
    c.ip.push(record.ip);
    c.ip_key.push(record.ipKey ? Buffer.from(record.ipKey) : null);
    c.started_at.push(conversion.startedAt);
    c.completed_ms.push(conversion.completedAt - conversion.startedAt);
    c.created_ms.push(createdAt - conversion.startedAt);
    c.location.push(location);
    c.network.push(network);
    c.tz_offset.push(record.tzOffset);
    c.time_shift.push(record.timeShift);
    c.completion_us.push(record.completionUs);
    c.extra.push(record.extra);
    c.seq.push(seq);
  }

  sql(): string {
    const names = Object.keys(this.columns);
    const arrays = names.map((name, i) => `$${i + 1}::${ConversionColumns.TYPES[name]}[]`);
    return `INSERT INTO conversions (${names.join(", ")}) SELECT * FROM unnest(${arrays.join(", ")})`;
  }

  params(): unknown[] {
    return Object.values(this.columns);
  }
}
