/**
 * The embedded store: one SQLite file in the data dir, WAL journal. better-sqlite3 is
 * synchronous, so each group commit is one short IMMEDIATE transaction; other processes on the
 * same file (the CLI, cluster workers) wait on busy_timeout instead of failing.
 */
import Database from "better-sqlite3";
import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
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
import { SQLITE_MIGRATIONS } from "./migrations.js";

export interface SqliteOptions {
  dataDir: string;
  /**
   * `NORMAL` (default): a commit is in the WAL file before the promise resolves, so an
   * acknowledged conversion survives kill -9 (the contract's promise); a power cut may lose the
   * last commits. `FULL` also fsyncs every commit: power-safe, measured ~20% slower here.
   */
  synchronous?: "FULL" | "NORMAL";
}

export const SQLITE_FILE = "ipatlas.sqlite";
const SQLITE_GROUP_ROWS = 5000;

interface PendingBatch {
  batch: ConversionBatch;
  records: EncodedRecord[];
}

export function uuidToBlob(uuid: string): Buffer {
  return Buffer.from(uuid.replace(/-/g, ""), "hex");
}

export function blobToUuid(blob: Uint8Array): string {
  const hex = Buffer.from(blob).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Opens (creating if needed) and migrates the data dir's SQLite file: the one way to get a SqliteStorage. */
export async function openSqlite(options: SqliteOptions): Promise<SqliteStorage> {
  const storage = new SqliteStorage(options);
  try {
    await storage.migrate();
  } catch (error) {
    await storage.close();
    throw error;
  }
  return storage;
}

export class SqliteStorage implements Storage {
  readonly kind = "sqlite" as const;
  readonly db: Database.Database;
  private readonly queue: GroupCommitQueue<PendingBatch, CommitResult>;
  private readonly projectSeqs = new Map<string, number>();
  private readonly dimensionIds = { locations: new Map<string, number>(), networks: new Map<string, number>() };
  private stmt!: ReturnType<SqliteStorage["prepare"]>;
  /** the list planner's statements, by SQL text: a handful of shapes, each prepared once */
  private readonly listStatements = new Map<string, Database.Statement>();

  /** an unmigrated store; use openSqlite() */
  constructor(options: SqliteOptions) {
    mkdirSync(options.dataDir, { recursive: true });
    this.db = new Database(join(options.dataDir, SQLITE_FILE));
    this.db.pragma("journal_mode = WAL");
    this.db.pragma(`synchronous = ${options.synchronous ?? "NORMAL"}`);
    this.db.pragma("busy_timeout = 10000");
    this.db.pragma("foreign_keys = ON");
    // Indexes of a million rows outgrow the 2 MiB default page cache; random uuid and ip keys then
    // read pages from the OS on every insert. 64 MiB keeps them hot.
    this.db.pragma("cache_size = -65536");
    this.queue = new GroupCommitQueue((items) => Promise.resolve(this.writeGroup(items)), {
      weigh: (item) => (item as PendingBatch).records.length,
      // a group is written synchronously on the event loop: at most one full bulk per transaction
      maxWeight: SQLITE_GROUP_ROWS,
    });
  }

  private migrateNow(): void {
    this.db.transaction(() => {
      this.db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`);
      const applied = this.db.prepare("SELECT version FROM schema_migrations").pluck().all() as number[];
      for (const migration of pendingMigrations(SQLITE_MIGRATIONS, applied)) {
        this.db.exec(migration.sql);
        this.db
          .prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)")
          .run(migration.version, migration.name, Date.now());
      }
    }).immediate();
  }

  private prepare() {
    const db = this.db;
    return {
      changeVersion: db.prepare("SELECT version FROM change_counter WHERE id = 1").pluck(),
      bump: db.prepare("UPDATE change_counter SET version = version + 1 WHERE id = 1"),
      projectById: db.prepare("SELECT * FROM projects WHERE id = ?"),
      projectSeq: db.prepare("SELECT seq FROM projects WHERE id = ?").pluck(),
      keyById: db.prepare("SELECT * FROM api_keys WHERE id = ?"),
      websiteById: db.prepare("SELECT * FROM websites WHERE id = ? AND removed_at IS NULL"),
      // Quota reservation: one statement, atomic under SQLite's single writer. Nothing is
      // returned (and nothing changes) when the batch does not fit.
      reserve: db
        .prepare(
          `INSERT INTO usage (project, period, used)
             SELECT @project, @period, @n WHERE @limit IS NULL OR @n <= @limit
           ON CONFLICT (project, period) DO UPDATE SET used = used + excluded.used
             WHERE @limit IS NULL OR used + excluded.used <= @limit
           RETURNING used`,
        )
        .pluck(),
      usage: db.prepare("SELECT used FROM usage WHERE project = ? AND period = ?").pluck(),
      projectRows: db.prepare("SELECT COALESCE(SUM(used), 0) FROM usage WHERE project = ?").pluck(),
      insertConversion: db.prepare(
        `INSERT INTO conversions (project, unique_id, status, ip, ip_key, started_at, completed_ms, created_ms,
           location, network, tz_offset, time_shift, completion_us, extra, seq)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      // the project's last conversion id after n more
      numberConversions: db.prepare("UPDATE projects SET conversions = conversions + ? WHERE seq = ? RETURNING conversions").pluck(),
      insertLocation: db.prepare("INSERT INTO locations (hash, json) VALUES (?, ?) ON CONFLICT (hash) DO NOTHING"),
      locationId: db.prepare("SELECT id FROM locations WHERE hash = ?").pluck(),
      insertNetwork: db.prepare("INSERT INTO networks (hash, json) VALUES (?, ?) ON CONFLICT (hash) DO NOTHING"),
      networkId: db.prepare("SELECT id FROM networks WHERE hash = ?").pluck(),
      insertProject: db.prepare("INSERT INTO projects (id, name, plan, created_at) VALUES (@id, @name, @plan, @created_at)"),
      listProjects: db.prepare("SELECT * FROM projects ORDER BY seq"),
      setPlan: db.prepare("UPDATE projects SET plan = ? WHERE id = ?"),
      insertKey: db.prepare(
        `INSERT INTO api_keys (id, project_id, name, kind, hash, prefix, website_id, created_at)
         VALUES (@id, @project_id, @name, @kind, @hash, @prefix, @website_id, @created_at)`,
      ),
      listKeys: db.prepare("SELECT * FROM api_keys WHERE project_id = ? ORDER BY created_at, id"),
      keyByHash: db.prepare("SELECT * FROM api_keys WHERE hash = ? AND revoked_at IS NULL"),
      rollKey: db.prepare("UPDATE api_keys SET hash = ?, prefix = ? WHERE id = ? AND revoked_at IS NULL"),
      revokeKey: db.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL"),
      touchKey: db.prepare("UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)"),
      insertWebsite: db.prepare("INSERT INTO websites (id, project_id, origin, created_at) VALUES (@id, @project_id, @origin, @created_at)"),
      listWebsites: db.prepare("SELECT * FROM websites WHERE project_id = ? AND removed_at IS NULL ORDER BY created_at, id"),
      removeWebsite: db.prepare("UPDATE websites SET removed_at = ? WHERE id = ? AND removed_at IS NULL"),
      revokeWebsiteKeys: db.prepare("UPDATE api_keys SET revoked_at = ? WHERE website_id = ? AND revoked_at IS NULL"),
      conversionsByUids: db.prepare(
        `SELECT ${CONVERSION_COLUMNS} FROM conversions c ${CONVERSION_JOINS}
         WHERE c.unique_id IN (SELECT unhex(value) FROM json_each(?)) AND c.project = ?`,
      ),
      pageRows: db.prepare(
        `SELECT ${CONVERSION_COLUMNS} FROM conversions c ${CONVERSION_JOINS}
         WHERE c.id IN (SELECT value FROM json_each(?)) ORDER BY c.id DESC`,
      ),
      conversionByUid: db.prepare(
        `SELECT ${CONVERSION_COLUMNS} FROM conversions c ${CONVERSION_JOINS} WHERE c.unique_id = ? AND c.project = ?`,
      ),
    };
  }

  /** Runs the pending migrations, then prepares every statement once (they need the tables). */
  async migrate(): Promise<void> {
    this.migrateNow();
    this.stmt = this.prepare();
  }

  private listStatement(sql: string): Database.Statement {
    let statement = this.listStatements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.listStatements.set(sql, statement);
    }
    return statement;
  }

  async close(): Promise<void> {
    await this.queue.drain();
    if (this.db.open) this.db.close();
  }

  private bumpVersion(): void {
    this.stmt.bump.run();
  }

  async changeVersion(): Promise<number> {
    return this.stmt.changeVersion.get() as number;
  }

  // ---- projects

  async createProject(input: { name: string; plan: Plan }): Promise<Project> {
    const row: ProjectRow = { id: randomUUID(), name: input.name, plan: input.plan, created_at: Date.now() };
    this.db.transaction(() => {
      this.stmt.insertProject.run(row);
      this.bumpVersion();
    })();
    return toProject(row);
  }

  async getProject(id: string): Promise<Project | null> {
    const row = this.stmt.projectById.get(id) as ProjectRow | undefined;
    return row ? toProject(row) : null;
  }

  async listProjects(): Promise<Project[]> {
    return (this.stmt.listProjects.all() as ProjectRow[]).map(toProject);
  }

  async setPlan(projectId: string, plan: Plan): Promise<Project | null> {
    const changed = this.db.transaction(() => {
      const result = this.stmt.setPlan.run(plan, projectId);
      if (result.changes) this.bumpVersion();
      return result.changes > 0;
    })();
    return changed ? this.getProject(projectId) : null;
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
    const row = {
      id: randomUUID(),
      project_id: input.projectId,
      name: input.name,
      kind: input.kind,
      hash: input.hash,
      prefix: input.prefix,
      website_id: input.websiteId ?? null,
      created_at: Date.now(),
      last_used_at: null,
      revoked_at: null,
    };
    this.db.transaction(() => {
      this.stmt.insertKey.run(row);
      this.bumpVersion();
    })();
    return toKey(row);
  }

  async listKeys(projectId: string): Promise<ApiKey[]> {
    const rows = this.stmt.listKeys.all(projectId);
    return (rows as KeyRow[]).map(toKey);
  }

  async getKey(keyId: string): Promise<ApiKey | null> {
    const row = this.stmt.keyById.get(keyId) as KeyRow | undefined;
    return row ? toKey(row) : null;
  }

  async findKeyByHash(hash: string): Promise<KeyAuth | null> {
    const key = this.stmt.keyByHash.get(hash) as KeyRow | undefined;
    if (!key) return null;
    const project = this.stmt.projectById.get(key.project_id) as ProjectRow | undefined;
    if (!project) return null;
    const website = key.website_id ? (this.stmt.websiteById.get(key.website_id) as WebsiteRow | undefined) : undefined;
    // A public key whose website was removed is dead.
    if (key.kind === "public" && !website) return null;
    return { key: toKey(key), project: toProject(project), website: website ? toWebsite(website) : null };
  }

  async rollKey(keyId: string, hash: string, prefix: string): Promise<ApiKey | null> {
    const changed = this.db.transaction(() => {
      const result = this.stmt.rollKey.run(hash, prefix, keyId);
      if (result.changes) this.bumpVersion();
      return result.changes > 0;
    })();
    return changed ? this.getKey(keyId) : null;
  }

  async revokeKey(keyId: string): Promise<ApiKey | null> {
    const changed = this.db.transaction(() => {
      const result = this.stmt.revokeKey.run(Date.now(), keyId);
      if (result.changes) this.bumpVersion();
      return result.changes > 0;
    })();
    return changed ? this.getKey(keyId) : null;
  }

  async touchKeys(uses: Array<{ keyId: string; at: number }>): Promise<void> {
    if (!uses.length) return;
    this.db.transaction(() => {
      for (const use of uses) this.stmt.touchKey.run(use.at, use.keyId, use.at);
    })();
  }

  // ---- websites

  async createWebsite(input: { projectId: string; origin: string }): Promise<Website> {
    const row: WebsiteRow = { id: randomUUID(), project_id: input.projectId, origin: input.origin, created_at: Date.now() };
    this.db.transaction(() => {
      this.stmt.insertWebsite.run(row);
      this.bumpVersion();
    })();
    return toWebsite(row);
  }

  async listWebsites(projectId: string): Promise<Website[]> {
    const rows = this.stmt.listWebsites.all(projectId);
    return (rows as WebsiteRow[]).map(toWebsite);
  }

  async getWebsite(websiteId: string): Promise<Website | null> {
    const row = this.stmt.websiteById.get(websiteId) as WebsiteRow | undefined;
    return row ? toWebsite(row) : null;
  }

  /** Removes the website and revokes its public keys in the same transaction. */
  async removeWebsite(websiteId: string): Promise<Website | null> {
    const row = this.stmt.websiteById.get(websiteId) as WebsiteRow | undefined;
    if (!row) return null;
    const removed = this.db.transaction(() => {
      const now = Date.now();
      const result = this.stmt.removeWebsite.run(now, websiteId);
      if (!result.changes) return false;
      this.stmt.revokeWebsiteKeys.run(now, websiteId);
      this.bumpVersion();
      return true;
    })();
    return removed ? toWebsite(row) : null;
  }

  // ---- conversions

  async commitConversions(batch: ConversionBatch): Promise<CommitResult> {
    return this.queue.submitWhenReady(encodeConversions(batch.conversions).then((records) => ({ batch, records })));
  }

  private writeGroup(items: PendingBatch[]): CommitResult[] {
    const learned = { locations: new Map<string, number>(), networks: new Map<string, number>() };
    const createdAt = Date.now();
    const results = this.db.transaction(() =>
      items.map(({ batch, records }): CommitResult => {
        const project = this.requireProjectSeq(batch.projectId);
        const n = batch.conversions.length;
        const used = this.stmt.reserve.get({ project, period: batch.period, n, limit: batch.limit }) as number | undefined;
        if (used === undefined) {
          return { accepted: false, used: (this.stmt.usage.get(project, batch.period) as number | undefined) ?? 0 };
        }
        const firstId = (this.stmt.numberConversions.get(n, project) as number) - n + 1;
        batch.conversions.forEach((conversion, i) => {
          const record = records[i]!;
          this.stmt.insertConversion.run(
            project,
            uuidToBlob(conversion.uniqueId),
            STATUS_CODES[conversion.status],
            record.ip,
            record.ipKey,
            conversion.startedAt,
            conversion.completedAt - conversion.startedAt,
            createdAt - conversion.startedAt,
            this.dimensionId("locations", record.location, learned.locations),
            this.dimensionId("networks", record.network, learned.networks),
            record.tzOffset,
            record.timeShift,
            record.completionUs,
            record.extra,
            firstId + i,
          );
        });
        return { accepted: true, used };
      }),
    ).immediate();
    // Only ids of committed rows are remembered.
    for (const [hash, id] of learned.locations) this.dimensionIds.locations.set(hash, id);
    for (const [hash, id] of learned.networks) this.dimensionIds.networks.set(hash, id);
    return results;
  }

  private dimensionId(table: "locations" | "networks", dim: Dimension, learned: Map<string, number>): number {
    const key = dim.key;
    const known = this.dimensionIds[table].get(key) ?? learned.get(key);
    if (known !== undefined) return known;
    const [insert, select] =
      table === "locations"
        ? [this.stmt.insertLocation, this.stmt.locationId]
        : [this.stmt.insertNetwork, this.stmt.networkId];
    insert.run(dim.hash, dim.json);
    const id = select.get(dim.hash) as number;
    learned.set(key, id);
    return id;
  }

  private requireProjectSeq(projectId: string): number {
    const seq = this.projectSeq(projectId);
    if (seq === null) throw new Error(`Unknown project ${projectId}`);
    return seq;
  }

  private projectSeq(projectId: string): number | null {
    let seq = this.projectSeqs.get(projectId);
    if (seq === undefined) {
      seq = this.stmt.projectSeq.get(projectId) as number | undefined;
      if (seq === undefined) return null;
      this.projectSeqs.set(projectId, seq);
    }
    return seq;
  }

  async usage(projectId: string, period: string): Promise<number> {
    const project = this.projectSeq(projectId);
    if (project === null) return 0;
    return (this.stmt.usage.get(project, period) as number | undefined) ?? 0;
  }

  async getConversion(projectId: string, uniqueId: string): Promise<StoredConversion | null> {
    const project = this.projectSeq(projectId);
    if (project === null || !isUuid(uniqueId)) return null;
    const row = this.stmt.conversionByUid.get(uuidToBlob(uniqueId), project) as RawRow | undefined;
    return row ? toConversion(fromRaw(row)) : null;
  }

  async getConversions(projectId: string, uniqueIds: string[]): Promise<StoredConversion[]> {
    const project = this.projectSeq(projectId);
    const ids = [...new Set(uniqueIds.filter(isUuid).map((id) => id.toLowerCase()))];
    if (project === null || !ids.length) return [];
    const rows = this.stmt.conversionsByUids.all(JSON.stringify(ids.map((id) => id.replace(/-/g, ""))), project) as RawRow[];
    return inRequestOrder(uniqueIds, rows.map((row) => toConversion(fromRaw(row))));
  }

  async listConversions(query: ListQuery): Promise<ListResult> {
    const project = this.projectSeq(query.projectId);
    if (project === null) return { conversions: [], totalCount: 0 };
    const projectRows = this.stmt.projectRows.get(project) as number;
    const plan = ipSearchPlan(query.ip);
    let totalCount = projectRows;
    // The page's ids: either from the project's rows, walked newest first with the filter as a
    // row condition, or (filtered, few matches) all matches from the ip indexes, then sorted.
    let ids: string;
    let params: unknown[];
    if (!plan) {
      ids = "SELECT c.id FROM conversions c INDEXED BY conversions_project WHERE c.project = ?";
      params = [project];
    } else {
      const scans = plan.scans.map((scan) => scanSql(scan, plan.text));
      const scanParams = scans.flatMap((scan) => [project, ...scan.params]);
      // the scans are disjoint, so their counts add up
      totalCount = this.listStatement(`SELECT ${scans.map((scan) => `(SELECT count(*) FROM ${scan.from} WHERE c.project = ? AND ${scan.where})`).join(" + ")}`)
        .pluck()
        .get(...scanParams) as number;
      if (preferIpIndex(totalCount, projectRows, query.offset, query.limit)) {
        ids = `SELECT id FROM (${scans.map((scan) => `SELECT c.id FROM ${scan.from} WHERE c.project = ? AND ${scan.where}`).join(" UNION ALL ")})`;
        params = scanParams;
      } else {
        const walk = plan.text ? { where: "c.ip >= ? AND c.ip < ?", params: [plan.text.from, plan.text.to] } : scans[0]!;
        ids = `SELECT c.id FROM conversions c INDEXED BY conversions_project WHERE c.project = ? AND ${walk.where}`;
        params = [project, ...walk.params];
      }
    }
    if (totalCount <= query.offset) return { conversions: [], totalCount };
    // Page ids first (from the index alone when it covers the filter), then only those rows,
    // so a sort never carries whole rows and their joined JSON.
    const pageIds = this.listStatement(`${ids} ORDER BY id DESC LIMIT ? OFFSET ?`)
      .pluck()
      .all(...params, query.limit, query.offset) as number[];
    const rows = this.stmt.pageRows.all(JSON.stringify(pageIds)) as RawRow[];
    return { conversions: rows.map((row) => toConversion(fromRaw(row))), totalCount };
  }
}

/**
 * One scan of an ipSearch plan: an ip_key range on the key index, or the rows without a key on
 * the partial text index, with the text check where the key range alone may hold non-matches.
 */
function scanSql(scan: IpScan, text: IpSearchPlan["text"]): { from: string; where: string; params: unknown[] } {
  const conditions = scan.key ? ["c.ip_key >= ? AND c.ip_key <= ?"] : ["c.ip_key IS NULL"];
  const params: unknown[] = scan.key ? [scan.key.first, scan.key.last] : [];
  if (scan.checkText && text) {
    conditions.push("c.ip >= ? AND c.ip < ?");
    params.push(text.from, text.to);
  }
  const index = scan.key ? "conversions_ip_key" : "conversions_ip_unkeyed";
  return { from: `conversions c INDEXED BY ${index}`, where: conditions.join(" AND "), params };
}

type RawRow = Omit<ConversionRow, "unique_id"> & { unique_id: Buffer };

function fromRaw(row: RawRow): ConversionRow {
  return { ...row, unique_id: blobToUuid(row.unique_id) };
}
