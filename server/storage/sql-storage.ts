/**
 * The one Storage implementation, over a Dialect (./dialect.ts) that holds a backend's SQL and
 * driver calls. Everything that does not depend on the SQL lives here once: new rows' ids and
 * times, group commit, the project and dimension id caches, the list planner and row decoding.
 */
import { randomUUID } from "node:crypto";
import type { Plan } from "../../lib/schemas/api.js";
import { byTable, DIMENSION_TABLES, emptyColumns, type BulkPiece, type ConversionGroup, type Dialect, type DimensionTable, type PageSource, type WriteResult } from "./dialect.js";
import { GroupCommitQueue } from "./group-commit.js";
import { ListTurns } from "./list-turns.js";
import { ipSearchPlan, type IpSearchPlan } from "./ip-prefix.js";
import { encodeConversions, STATUS_CODES, type Dimension, type EncodedRecord } from "./record-codec.js";
import { TimeSlice } from "../time-slice.js";
import {
  inRequestOrder,
  isUuid,
  toConversion,
  toKey,
  toProject,
  toWebsite,
  type KeyRow,
  type ProjectRow,
  type WebsiteRow,
} from "./rows.js";
import type {
  ApiKey,
  CommitResult,
  ConversionBatch,
  IpFilter,
  KeyAuth,
  KeyKind,
  ListQuery,
  ListResult,
  Project,
  Storage,
  StorageWaiting,
  StoredConversion,
  Website,
} from "./types.js";

interface PendingBatch {
  batch: ConversionBatch;
  records: EncodedRecord[];
  piece?: BulkPiece;
}

/**
 * A turn at writing shared by the processes that write one SQLite file. Without it they meet on
 * SQLite's lock, whose busy handler sleeps 1, 2, 5, 10… ms between tries: under GET /convert load
 * on two workers that made p99 340 ms. With it they take turns, waiting only for each other.
 */
export interface WriteTurn {
  /** resolves once this process may write; release() hands the turn on. `light`: a GET's rows, not a bulk */
  take(light: boolean): Promise<void>;
  release(): void;
  /** `listener` is called when another process waits with light rows while this one holds the turn */
  onLightWaiting?(listener: () => void): void;
}

export interface SqlStorageOptions {
  /** taken around every group commit when several processes write one SQLite file (`serve --workers`) */
  writeTurn?: WriteTurn;
  /**
   * part ids remembered per table before the map starts afresh (default 200,000, ~80 bytes each):
   * parts are as many as the data's locations and networks times the languages asked for, so
   * without a bound a client asking in every language would grow it for as long as it likes. A
   * part forgotten is saved again when next met, which finds its row (content-addressed).
   */
  partIdsMax?: number;
}

/**
 * A part's id in the database of the storage whose id map `known` is (the map is also its marker
 * on the part, Dimension.savedIn); undefined when not saved there yet.
 */
function dimensionId(known: Map<string, number>, dim: Dimension): number | undefined {
  if (dim.savedIn === known) return dim.savedId;
  const id = known.get(dim.key);
  if (id !== undefined) {
    dim.savedIn = known;
    dim.savedId = id;
  }
  return id;
}

export class SqlStorage<D extends Dialect = Dialect> implements Storage {
  readonly kind: Dialect["kind"];
  private readonly queue: GroupCommitQueue<PendingBatch, WriteResult>;
  /** project id → integer id; a project is never deleted, so an entry never goes stale */
  private readonly projectSeqs = new Map<string, number>();
  /** dimension key → row id, only for rows known to be committed */
  private readonly dimensionIds: Record<DimensionTable, Map<string, number>> = byTable(() => new Map());

  private readonly writeTurn?: WriteTurn;
  private readonly partIdsMax: number;
  private readonly listTurns: ListTurns;

  /** `dialect` migrated and ready (createStorage in ./index.ts) */
  constructor(
    readonly dialect: D,
    options: SqlStorageOptions = {},
  ) {
    this.kind = dialect.kind;
    this.writeTurn = options.writeTurn;
    this.partIdsMax = options.partIdsMax ?? 200_000;
    this.listTurns = new ListTurns(dialect.listReaders);
    this.queue = new GroupCommitQueue((items, light) => this.writeGroup(items, light), {
      weigh: (item) => (item as PendingBatch).records.length,
      maxWeight: dialect.groupRows,
      onLightWaiting: dialect.writerWanted && (() => dialect.writerWanted!()),
      onTake: dialect.writerTaken && (() => dialect.writerTaken!()),
      makesWay: dialect.makesWay && (() => dialect.makesWay!()),
      written: (item, result) => (result as WriteResult).written ?? (item as PendingBatch).records.length,
      // SQLite's beside a bulk only on its writer thread, and not under `--workers`' write turn,
      // which the bulk's process holds for the bulk
      lightAlongside: dialect.concurrentWrites ? true : () => !this.writeTurn && (dialect.makesWay?.() ?? false),
    });
    // another worker's GET waits for the turn this process holds: a bulk makes way for it too
    if (dialect.writerWanted) this.writeTurn?.onLightWaiting?.(() => dialect.writerWanted!());
  }

  migrate(): Promise<void> {
    return this.dialect.migrate();
  }

  async close(): Promise<void> {
    await this.queue.drain();
    await this.dialect.close();
  }

  changeVersion(): Promise<number> {
    return this.dialect.changeVersion();
  }

  async upkeepWarnings(): Promise<string[]> {
    return (await this.dialect.upkeepWarnings?.()) ?? [];
  }

  waiting(): StorageWaiting {
    return { writeRows: this.queue.waitingWeight, lists: this.listTurns.queued };
  }

  // ---- projects

  async createProject(input: { name: string; plan: Plan }): Promise<Project> {
    const row: ProjectRow = { id: randomUUID(), name: input.name, plan: input.plan, created_at: Date.now() };
    await this.dialect.insertProject(row);
    return toProject(row);
  }

  async getProject(id: string): Promise<Project | null> {
    return orNull(await this.dialect.projectById(id), toProject);
  }

  async listProjects(): Promise<Project[]> {
    return (await this.dialect.listProjects()).map(toProject);
  }

  async setPlan(projectId: string, plan: Plan): Promise<Project | null> {
    return orNull(await this.dialect.setPlan(projectId, plan), toProject);
  }

  // ---- keys

  async createKey(input: { projectId: string; name: string; kind: KeyKind; hash: string; prefix: string; websiteId?: string | null }): Promise<ApiKey> {
    const row: KeyRow & { hash: string } = {
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
    await this.dialect.insertKey(row);
    return toKey(row);
  }

  async listKeys(projectId: string): Promise<ApiKey[]> {
    return (await this.dialect.listKeys(projectId)).map(toKey);
  }

  async getKey(keyId: string): Promise<ApiKey | null> {
    return orNull(await this.dialect.keyById(keyId), toKey);
  }

  async findKeyByHash(hash: string): Promise<KeyAuth | null> {
    const found = await this.dialect.keyAuthByHash(hash);
    if (!found) return null;
    // A public key whose website was removed is dead.
    if (found.key.kind === "public" && !found.website) return null;
    return { key: toKey(found.key), project: toProject(found.project), website: found.website && toWebsite(found.website) };
  }

  async rollKey(keyId: string, hash: string, prefix: string): Promise<ApiKey | null> {
    return orNull(await this.dialect.rollKey(keyId, hash, prefix), toKey);
  }

  async revokeKey(keyId: string): Promise<ApiKey | null> {
    return orNull(await this.dialect.revokeKey(keyId, Date.now()), toKey);
  }

  async touchKeys(uses: Array<{ keyId: string; at: number }>): Promise<void> {
    if (uses.length) await this.dialect.touchKeys(uses);
  }

  // ---- websites

  async createWebsite(input: { projectId: string; origin: string }): Promise<Website> {
    const row: WebsiteRow = { id: randomUUID(), project_id: input.projectId, origin: input.origin, created_at: Date.now() };
    await this.dialect.insertWebsite(row);
    return toWebsite(row);
  }

  async listWebsites(projectId: string): Promise<Website[]> {
    return (await this.dialect.listWebsites(projectId)).map(toWebsite);
  }

  async getWebsite(websiteId: string): Promise<Website | null> {
    return orNull(await this.dialect.websiteById(websiteId), toWebsite);
  }

  /** Removes the website and revokes its public keys in the same transaction. */
  async removeWebsite(websiteId: string): Promise<Website | null> {
    return orNull(await this.dialect.removeWebsite(websiteId, Date.now()), toWebsite);
  }

  // ---- conversions

  commitConversions(batch: ConversionBatch): Promise<CommitResult> {
    const records = encodeConversions(batch.conversions);
    const yieldingRows = this.dialect.yieldingRows;
    if (!yieldingRows || batch.conversions.length <= yieldingRows) return this.queue.submitWhenReady(records.then((ready) => ({ batch, records: ready })));
    return this.queue.hold(records.then((ready) => this.commitBulk(batch, ready)));
  }

  /**
   * A bulk, in as many pieces as the dialect stops at (it stops when a light request waits for
   * the one writer), each through the queue in turn, so what arrives meanwhile is written between
   * two pieces instead of after the whole bulk. The first piece reserves the quota of all rows;
   * the answer waits for the last (docs/storage.md "Bulks in pieces").
   */
  private async commitBulk(batch: ConversionBatch, records: EncodedRecord[]): Promise<CommitResult> {
    const total = records.length;
    const write = (start: number, piece: BulkPiece) =>
      this.queue.submit({ batch: start ? { ...batch, conversions: batch.conversions.slice(start) } : batch, records: start ? records.slice(start) : records, piece });
    const first = await write(0, { bulk: null, rows: total, seq: 0 });
    if (!first.bulk) return { accepted: first.accepted, used: first.used } as CommitResult;
    const { id, firstSeq } = first.bulk;
    try {
      let result = first;
      for (let start = first.written!; start < total; start += result.written!) {
        result = await write(start, { bulk: id, rows: total, seq: firstSeq + start });
      }
      return { accepted: true, used: result.used };
    } catch (error) {
      // should this fail too, the bulk stays hidden, holding its quota, until the first opening
      // of the file after this process ends removes it
      await this.dialect.abortBulk?.(id).catch(() => {});
      throw error;
    }
  }

  /**
   * A write to the database in this process's write turn (`--workers` on SQLite: one process
   * writes the file at a time), held for the write alone, not while its group is prepared.
   */
  private async inTurn<R>(light: boolean, write: () => Promise<R>): Promise<R> {
    if (!this.writeTurn) return write();
    await this.writeTurn.take(light);
    try {
      return await write();
    } finally {
      this.writeTurn.release();
    }
  }

  private async writeGroup(items: PendingBatch[], light: boolean): Promise<WriteResult[]> {
    const resumed = items.length === 1 && items[0]!.piece ? await this.resumeBulk(items[0]!) : null;
    if (resumed) return [resumed];
    const projects: number[] = [];
    for (const { batch } of items) {
      const seq = await this.projectSeq(batch.projectId);
      // fails the group; the queue then writes each batch alone, so only this one fails
      if (seq === null) throw new Error(`Unknown project ${batch.projectId}`);
      projects.push(seq);
    }
    // one slice over these loops and the dialect's (PostgreSQL's array literals, made beside the
    // columns): none starts a fresh one where another left off
    const slice = new TimeSlice();
    const newDimensions = await this.newDimensions(items, slice);
    // a light group's parts go with its rows (ConversionGroup.newDimensions); a bulk's first, in
    // statements of their own: its transaction is long, and a GET that needs one of the same new
    // parts would wait for it to commit. Its rows are made ready while they are saved, with
    // placeholders for their ids (ConversionGroup.savingDimensions).
    const withRows = newDimensions && light ? newDimensions : undefined;
    const saving = newDimensions && !withRows ? this.saveDimensions(newDimensions, light, slice) : undefined;
    // its failure is thrown where the dialect awaits it, not as an unhandled rejection meanwhile
    saving?.catch(() => {});
    const group: ConversionGroup = await this.columns(items, projects, Date.now(), slice, newDimensions);
    if (withRows) group.newDimensions = withRows;
    if (saving) group.savingDimensions = saving;
    const sent = () => {
      for (const { batch } of items) batch.onWriting?.();
    };
    const results = await this.inTurn(light, () => this.dialect.writeConversions(group, slice, sent));
    if (!withRows) return results;
    // the ids are the cache's; what the callers get are their batches' results alone
    const { dimensionIds, ...first } = results[0]!;
    for (const table of DIMENSION_TABLES) this.rememberDimensions(table, withRows[table], dimensionIds![table]);
    return [first as WriteResult, ...results.slice(1)];
  }

  /**
   * A group that is only the next piece of a bulk (`item`), from the rows the dialect kept when
   * the piece before stopped: a bulk that makes way for several GETs is built and sent to the
   * writer once, not once more per stop. Null when the dialect did not keep them; the group is
   * then sent whole.
   */
  private async resumeBulk({ batch, piece }: PendingBatch): Promise<WriteResult | null> {
    if (!piece || piece.bulk === null || !this.dialect.resumeBulk) return null;
    const project = await this.projectSeq(batch.projectId);
    if (project === null) return null;
    const resumed = { project, period: batch.period, limit: batch.limit, piece: { ...piece, bulk: piece.bulk } };
    return this.inTurn(false, () => this.dialect.resumeBulk!(resumed));
  }

  /**
   * The group's location and network rows not known to be saved, each table's in the order of
   * their keys (one order for every writer, so two that save the same parts lock them in the same
   * order); undefined when there are none.
   */
  private async newDimensions(items: PendingBatch[], slice: TimeSlice): Promise<Record<DimensionTable, Dimension[]> | undefined> {
    const missing = byTable(() => new Map<string, Dimension>());
    const { locations, networks } = this.dimensionIds;
    for (const { records } of items) {
      for (const record of records) {
        if (slice.due()) await slice.pause();
        if (dimensionId(locations, record.location) === undefined) missing.locations.set(record.location.key, record.location);
        if (dimensionId(networks, record.network) === undefined) missing.networks.set(record.network.key, record.network);
      }
    }
    if (!missing.locations.size && !missing.networks.size) return undefined;
    // keys are unique within a map; strings compare in a fraction of a Buffer.compare's time
    const inKeyOrder = (parts: Map<string, Dimension>) => [...parts.values()].sort((a, b) => (a.key < b.key ? -1 : 1));
    return byTable((table) => inKeyOrder(missing[table]));
  }

  /**
   * Saved in their own statements, before the rows' transaction: they are content-addressed, so one
   * left over from a refused batch is harmless, and only committed ids enter the cache.
   */
  private async saveDimensions(dims: Record<DimensionTable, Dimension[]>, light: boolean, slice: TimeSlice): Promise<Record<DimensionTable, number[]>> {
    const ids = await this.inTurn(light, () => this.dialect.saveDimensions(dims, slice));
    for (const table of DIMENSION_TABLES) this.rememberDimensions(table, dims[table], ids[table]);
    return ids;
  }

  /** the committed ids of `dims`, in their order */
  private rememberDimensions(table: DimensionTable, dims: Dimension[], ids: number[]): void {
    const known = this.dimensionIds[table];
    // parts already marked with this map keep their ids (Dimension.savedIn): a row's id never changes
    if (known.size + dims.length > this.partIdsMax) known.clear();
    dims.forEach((dim, i) => known.set(dim.key, ids[i]!));
  }

  /**
   * The group's rows as columns, a new part's id a placeholder (ConversionGroup.newDimensions); a
   * bulk's in time slices (the writer waits for them either way, the event loop need not).
   */
  private async columns(
    items: PendingBatch[],
    projects: number[],
    createdAt: number,
    slice: TimeSlice,
    newDimensions?: Record<DimensionTable, Dimension[]>,
  ): Promise<Pick<ConversionGroup, "batches" | "rows">> {
    const rows = emptyColumns(items.reduce((sum, { batch }) => sum + batch.conversions.length, 0));
    const locations = this.dimensionIds.locations;
    const networks = this.dimensionIds.networks;
    // the parts the statement saves, by the placeholder ConversionGroup.newDimensions describes
    const placeholders = (parts: Dimension[] = []) => new Map(parts.map((dim, i) => [dim.key, -(i + 1)]));
    const newLocations = placeholders(newDimensions?.locations);
    const newNetworks = placeholders(newDimensions?.networks);
    const batches: ConversionGroup["batches"] = [];
    let row = 0;
    for (let i = 0; i < items.length; i++) {
      const { batch, records, piece } = items[i]!;
      const start = row;
      const project = projects[i]!;
      for (let j = 0; j < batch.conversions.length; j++, row++) {
        if (slice.due()) await slice.pause();
        const conversion = batch.conversions[j]!;
        const record = records[j]!;
        rows.project[row] = project;
        rows.unique_id[row] = conversion.uniqueId;
        rows.status[row] = STATUS_CODES[conversion.status];
        rows.ip[row] = record.ip;
        rows.ip_key[row] = record.ipKey;
        rows.started_at[row] = conversion.startedAt;
        rows.completed_ms[row] = conversion.completedAt - conversion.startedAt;
        rows.created_ms[row] = createdAt - conversion.startedAt;
        rows.location[row] = dimensionId(locations, record.location) ?? newLocations.get(record.location.key)!;
        rows.network[row] = dimensionId(networks, record.network) ?? newNetworks.get(record.network.key)!;
        rows.tz_offset[row] = record.tzOffset;
        rows.time_shift[row] = record.timeShift;
        rows.completion_us[row] = record.completionUs;
        rows.extra[row] = record.extra;
        rows.seq[row] = 0;
      }
      batches.push({ project, period: batch.period, limit: batch.limit, start, end: row, piece });
    }
    return { batches, rows };
  }

  private async projectSeq(projectId: string): Promise<number | null> {
    let seq = this.projectSeqs.get(projectId);
    if (seq === undefined) {
      seq = await this.dialect.projectSeq(projectId);
      if (seq === undefined) return null;
      this.projectSeqs.set(projectId, seq);
    }
    return seq;
  }

  async usage(projectId: string, period: string): Promise<number> {
    const project = await this.projectSeq(projectId);
    return project === null ? 0 : this.dialect.usage(project, period);
  }

  async getConversion(projectId: string, uniqueId: string): Promise<StoredConversion | null> {
    if (!isUuid(uniqueId)) return null;
    const project = await this.projectSeq(projectId);
    if (project === null) return null;
    return orNull(await this.dialect.conversionByUid(project, uniqueId.toLowerCase()), toConversion);
  }

  async getConversions(projectId: string, uniqueIds: string[]): Promise<StoredConversion[]> {
    const ids = [...new Set(uniqueIds.filter(isUuid).map((id) => id.toLowerCase()))];
    if (!ids.length) return [];
    const project = await this.projectSeq(projectId);
    if (project === null) return [];
    return inRequestOrder(uniqueIds, (await this.dialect.conversionsByUids(project, ids)).map(toConversion));
  }

  /**
   * Newest first. Unfiltered, the count is the sum of the quota counters (rows and counts commit
   * together). Filtered, two plans: walk the project's rows from the newest and skip non-matches
   * (cheap when matches are common), or take all matches from the ip indexes and sort them (cheap
   * when they are rare); the count of matches, needed for totalCount anyway, picks. Lists take
   * turns (./list-turns.ts): a few are read at once, the projects waiting starting one each in turn.
   */
  async listConversions(query: ListQuery): Promise<ListResult> {
    const project = await this.projectSeq(query.projectId);
    if (project === null) return { conversions: [], totalCount: 0 };
    return this.listTurns.run(project, () => this.readList(project, query));
  }

  private async readList(project: number, query: ListQuery): Promise<ListResult> {
    const plan = ipSearchPlan(query.ip);
    const { projectRows, matches } = await this.dialect.countConversions(project, plan);
    const totalCount = plan ? matches : projectRows;
    if (totalCount <= query.offset) return { conversions: [], totalCount };
    const rows = await this.dialect.listPage(project, pageSource(plan, projectRows, matches, query.offset, query.limit), query.limit, query.offset);
    return { conversions: rows.map(toConversion), totalCount };
  }

  /**
   * Pages read on from the last one's lowest row id, not at growing offsets: a page at offset n
   * walks n rows first, so reading a million rows by offsets walks them ~1000 times over
   * (docs/storage.md "Lists off the event loop, taking turns"). The plan is picked once.
   */
  async *walkConversions(projectId: string, ip: IpFilter | undefined, pageRows: number): AsyncGenerator<StoredConversion[]> {
    const project = await this.projectSeq(projectId);
    if (project === null) return;
    const plan = ipSearchPlan(ip);
    let source: PageSource = { kind: "walk", filter: null };
    if (plan) {
      const { projectRows, matches } = await this.listTurns.run(project, () => this.dialect.countConversions(project, plan));
      if (!matches) return;
      // as for one page: every page sorts all matches below it (matches² / pageRows in all) or the
      // walk checks the project's rows once
      source = pageSource(plan, projectRows, matches, 0, pageRows);
    }
    let before: number | undefined;
    for (;;) {
      const rows = await this.listTurns.run(project, () => this.dialect.listPage(project, source, pageRows, 0, before));
      if (rows.length) yield rows.map(toConversion);
      if (rows.length < pageRows) return;
      before = rows.at(-1)!.id;
    }
  }
}

function orNull<R, T>(row: R | undefined, to: (row: R) => T): T | null {
  return row === undefined ? null : to(row);
}

/** where a page's rows come from (the planner's choice for a filtered page, below) */
function pageSource(plan: IpSearchPlan | null, projectRows: number, matches: number, offset: number, limit: number): PageSource {
  if (!plan) return { kind: "walk", filter: null };
  if (preferIpIndex(matches, projectRows, offset, limit)) return { kind: "matches", plan };
  return { kind: "walk", filter: plan.text ? { text: plan.text } : { key: plan.scans[0]!.key! } };
}

/** The list planner's choice for a filtered page: true when sorting all matches costs less than walking to the page. */
export function preferIpIndex(matches: number, projectRows: number, offset: number, limit: number): boolean {
  const sortCost = matches;
  const walkCost = ((offset + limit) * projectRows) / Math.max(matches, 1);
  return sortCost <= walkCost;
}
