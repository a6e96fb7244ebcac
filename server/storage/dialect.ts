/**
 * What a backend supplies to the one Storage implementation (./sql-storage.ts): its SQL and its
 * driver calls, nothing else. Rows go in and come out in the shapes of ./rows.ts. Ids and times
 * of new rows, the caches, group commit, the list planner's choice and decoding are the core's,
 * so a second backend cannot drift from the first in any of them.
 */
import type { Plan } from "../../lib/schemas/api.js";
import type { IpSearchPlan } from "./ip-prefix.js";
import type { Dimension, SavedPart } from "./record-codec.js";
import type { ConversionRow, KeyRow, ProjectRow, WebsiteRow } from "./rows.js";
import type { CommitResult } from "./types.js";
import type { TimeSlice } from "../time-slice.js";

export type DimensionTable = "locations" | "networks";
export const DIMENSION_TABLES = ["locations", "networks"] as const satisfies readonly DimensionTable[];

/** a value per parts table, made in the order of DIMENSION_TABLES (the order writers lock them in) */
export function byTable<T>(make: (table: DimensionTable) => T): Record<DimensionTable, T> {
  return { locations: make("locations"), networks: make("networks") };
}

/** A key, its project and (for a public key) its website, as authentication reads them. */
export interface KeyAuthRows {
  key: KeyRow;
  project: ProjectRow;
  /** null when the key has none, or its website was removed */
  website: WebsiteRow | null;
}

/**
 * A group's rows to insert, one array per column, the batches one after the other. Columnar
 * because that is what PostgreSQL's unnest insert takes and what a row loop reads cheaply.
 */
export interface ConversionColumns {
  project: number[];
  unique_id: string[];
  status: number[];
  ip: Array<string | null>;
  ip_key: Array<Uint8Array | null>;
  started_at: number[];
  completed_ms: number[];
  created_ms: number[];
  location: number[];
  network: number[];
  tz_offset: Array<number | null>;
  time_shift: number[];
  completion_us: Array<number | null>;
  extra: Array<string | null>;
  /** the public id, numbered per project: the dialect fills it once the batch's quota is reserved */
  seq: number[];
}

/** the numeric columns a group carries from its conversions (all but `seq`, which the dialect fills) */
export const NUMBER_COLUMNS = ["project", "status", "started_at", "completed_ms", "created_ms", "location", "network", "tz_offset", "time_shift", "completion_us"] as const;
export type NumberColumnName = (typeof NUMBER_COLUMNS)[number];

/** a column as a dialect reads it to write it: indexed by row */
export interface WrittenColumn<T> {
  readonly length: number;
  [row: number]: T;
}

/**
 * A group's rows as a dialect reads them to write them: what the core builds (ConversionColumns),
 * or what SQLite's writer thread received (sqlite/writer.ts), which writes from it as it came:
 * each numeric column a Float64Array, null as NaN (which SQLite binds as NULL), and each id its
 * 16 bytes. Making them arrays again was most of the thread's garbage collection.
 */
export type RowsToWrite = Omit<ConversionColumns, NumberColumnName | "unique_id"> &
  Record<NumberColumnName, WrittenColumn<number | null>> & { unique_id: WrittenColumn<string | Uint8Array> };

/** a group as a dialect writes it; its new parts need only their keys and texts (SQLite's writer thread gets no more) */
export type GroupToWrite = Omit<ConversionGroup, "rows" | "newDimensions"> & { rows: RowsToWrite; newDimensions?: Record<DimensionTable, SavedPart[]> };

/** One convert request's share of a group: rows [start, end) of the group's columns. */
export interface GroupBatch {
  project: number;
  /** calendar month in UTC, "2026-11" */
  period: string;
  /** null: nothing is refused */
  limit: number | null;
  start: number;
  end: number;
  /** set when these rows are the rest of a bulk that may be written in several transactions */
  piece?: BulkPiece;
}

/**
 * Two batches that count against one quota (project, month, limit), neither a bulk's piece: a run
 * of them fits the quota as a whole exactly when each fits in turn, so a dialect may reserve and
 * number them as one.
 */
export const sameQuota = (a: GroupBatch, b: GroupBatch): boolean =>
  !a.piece && !b.piece && a.project === b.project && a.period === b.period && a.limit === b.limit;

/**
 * The rest of a bulk that may be written in several transactions (Dialect.yieldingRows): the
 * dialect writes as much of it as it can before another request is waiting, and says how much.
 * The first piece reserves the quota of all the bulk's rows and numbers them; if it does not
 * finish the bulk it opens it, and until the piece that finishes it closes it (and counts its
 * rows as used), the bulk's rows are neither listed nor counted; a server that dies in between
 * has them removed when the file is next opened.
 */
export interface BulkPiece {
  /** the open bulk these rows belong to; null for the first piece */
  bulk: number | null;
  /** rows in the whole bulk */
  rows: number;
  /** the seq of the piece's first row (0 in the first piece: it is numbered there) */
  seq: number;
}

/**
 * What writing a batch returned. For a piece of a bulk: how many of its rows were written, and
 * (a first piece that left the bulk open) the bulk it opened.
 */
/** A bulk's next piece, named without its rows (Dialect.resumeBulk). */
export type ResumedPiece = Omit<GroupBatch, "start" | "end"> & { piece: BulkPiece & { bulk: number } };

export type WriteResult = CommitResult & {
  written?: number;
  bulk?: { id: number; firstSeq: number };
  /** the ids of the group's newDimensions, in their order (on the group's first result) */
  dimensionIds?: Record<DimensionTable, number[]>;
};

export interface ConversionGroup {
  batches: GroupBatch[];
  rows: ConversionColumns;
  /**
   * New location and network rows saved with a light group's rows (GET /convert's), in its
   * transaction, each list in key order; a row's location or network -(i + 1) is the list's i-th
   * part. Their ids come back on the group's first result (WriteResult.dimensionIds), also when
   * every batch is refused. A bulk's group has none: the core saves its parts in statements of
   * their own (saveDimensions), while it makes the group, and gives it `savingDimensions`.
   */
  newDimensions?: Record<DimensionTable, Dimension[]>;
  /**
   * A bulk's new parts being saved (saveDimensions): the ids that replace its rows' placeholders
   * (-(i + 1), as for newDimensions) once they come. The dialect may ready the rows meanwhile
   * (placeDimensionIds for columns).
   */
  savingDimensions?: Promise<Record<DimensionTable, number[]>>;
}

/** The condition a newest-first walk over a project's rows keeps a row by. */
export type WalkFilter =
  | { text: { from: string; to: string } }
  | { key: { first: Uint8Array; last: Uint8Array } };

/** Where a page's ids come from; the core picks (./sql-storage.ts listConversions). */
export type PageSource =
  /** the project's rows newest first, with the filter (if any) checked row by row */
  | { kind: "walk"; filter: WalkFilter | null }
  /** every match of the ipSearch plan from the ip indexes, then sorted */
  | { kind: "matches"; plan: IpSearchPlan };

export interface Dialect {
  readonly kind: "sqlite" | "postgres";
  /** most rows one group commit carries (a bound on transaction length) */
  readonly groupRows: number;
  /** lists read at once, the rest taking turns (./list-turns.ts): what reads them, short of what the writes need */
  readonly listReaders: number;
  /**
   * Set: a batch of more rows is written as a bulk (`GroupBatch.piece`), which the dialect may
   * write in several transactions, stopping when another request waits for the one writer
   * (`writerWanted`). It then keeps the rows of a bulk still open out of lists and counts.
   */
  readonly yieldingRows?: number;
  /**
   * The database takes concurrent write transactions (PostgreSQL): a GET's row is written in a
   * group beside a bulk's instead of after it (GroupCommitOptions.lightAlongside).
   */
  readonly concurrentWrites?: boolean;
  /** whether a bulk being written stops for writerWanted now (SQLite: on its writer thread) */
  makesWay?(): boolean;
  /** another request is waiting behind the group being written: a bulk in it should stop soon */
  writerWanted?(): void;
  /** a new group is being taken: what was waiting is in it or ahead of it */
  writerTaken?(): void;
  /** removes the rows of an open bulk (a later piece failed) and releases its quota */
  abortBulk?(bulk: number): Promise<void>;
  /**
   * The next piece of an open bulk from the rows the dialect kept when the piece before stopped
   * (SQLite: its writer thread keeps them), so they are not built and sent again; null when it
   * holds no such rows, and the caller sends them with writeConversions.
   */
  resumeBulk?(batch: ResumedPiece): Promise<WriteResult | null>;
  /** runs the migrations not applied yet; the dialect is ready to use afterwards */
  migrate(): Promise<void>;
  close(): Promise<void>;

  changeVersion(): Promise<number>;
  /** Storage.upkeepWarnings; none when absent */
  upkeepWarnings?(): Promise<string[]>;
  // Every change below to projects, keys or websites moves the change counter atomically with it;
  // each returns the changed row, or undefined when nothing changed.
  insertProject(row: ProjectRow): Promise<void>;
  projectById(id: string): Promise<ProjectRow | undefined>;
  listProjects(): Promise<ProjectRow[]>;
  setPlan(projectId: string, plan: Plan): Promise<ProjectRow | undefined>;
  insertKey(row: KeyRow & { hash: string }): Promise<void>;
  listKeys(projectId: string): Promise<KeyRow[]>;
  keyById(keyId: string): Promise<KeyRow | undefined>;
  /** an unrevoked key by its hash */
  keyAuthByHash(hash: string): Promise<KeyAuthRows | undefined>;
  rollKey(keyId: string, hash: string, prefix: string): Promise<KeyRow | undefined>;
  revokeKey(keyId: string, at: number): Promise<KeyRow | undefined>;
  /** lastUsedAt only moves forward; not a change the counter follows */
  touchKeys(uses: Array<{ keyId: string; at: number }>): Promise<void>;
  insertWebsite(row: WebsiteRow): Promise<void>;
  /** websites not removed, by project or by id */
  listWebsites(projectId: string): Promise<WebsiteRow[]>;
  websiteById(websiteId: string): Promise<WebsiteRow | undefined>;
  /** marks the website removed and revokes its keys, together */
  removeWebsite(websiteId: string, at: number): Promise<WebsiteRow | undefined>;

  /** the project's integer id, which conversions and usage rows carry */
  projectSeq(projectId: string): Promise<number | undefined>;
  usage(project: number, period: string): Promise<number>;
  /**
   * stores the parts not stored yet (content-addressed: a duplicate is a no-op), both tables in
   * one transaction; each table's ids in the order of its parts. The core passes them in key order,
   * so concurrent writers lock them in one order. `slice`: the core's time slice for this group,
   * for work on the main thread before the statement goes out (PostgreSQL's array literals), so it
   * does not start a fresh one.
   */
  saveDimensions(dims: Record<DimensionTable, SavedPart[]>, slice?: TimeSlice): Promise<Record<DimensionTable, number[]>>;
  /**
   * One transaction: each batch reserves its quota with one atomic statement (used + n <= limit)
   * and, when it fits, numbers its rows (`seq`) and inserts them; a refused batch changes nothing
   * (but the group's newDimensions, which are saved either way, their ids in the batch's result).
   * `slice` as for saveDimensions. `sent` is called once the rows are on their way to the
   * database (before a write on this thread, just before it): from then until the reply, this
   * process has nothing more to do for them.
   */
  writeConversions(group: ConversionGroup, slice?: TimeSlice, sent?: () => void): Promise<WriteResult[]>;
  conversionByUid(project: number, uniqueId: string): Promise<ConversionRow | undefined>;
  /** lower-case uuids, each once */
  conversionsByUids(project: number, uniqueIds: string[]): Promise<ConversionRow[]>;
  /** rows of the project (the sum of its quota counters), and the plan's matches (the sum of its disjoint scans); an open bulk's rows are in neither */
  countConversions(project: number, plan: IpSearchPlan | null): Promise<{ projectRows: number; matches: number }>;
  /** a page of the source's rows, newest (highest id) first, without an open bulk's rows; with `before`, only rows of lower ids (a walk reading on from its last page) */
  listPage(project: number, source: PageSource, limit: number, offset: number, before?: number): Promise<ConversionRow[]>;
}

/** The rows of the accepted batches only, with their seq (for a dialect that inserts them in one statement). */
export function acceptedColumns(group: ConversionGroup, accepted: boolean[]): ConversionColumns {
  if (accepted.every(Boolean)) return group.rows;
  const out = emptyColumns();
  const names = Object.keys(out) as Array<keyof ConversionColumns>;
  group.batches.forEach((batch, i) => {
    if (!accepted[i]) return;
    for (const name of names) {
      const from = group.rows[name] as unknown[];
      const to = out[name] as unknown[];
      for (let row = batch.start; row < batch.end; row++) to.push(from[row]);
    }
  });
  return out;
}

/** the ids of the bulk's parts saved meanwhile (ConversionGroup.savingDimensions) in place of its rows' placeholders, once they come */
export async function placeSavedDimensions(group: Pick<GroupToWrite, "rows" | "savingDimensions">): Promise<void> {
  if (group.savingDimensions) placeDimensionIds(group, await group.savingDimensions);
}

/** puts the saved parts' ids in place of the placeholders (ConversionGroup.newDimensions) in the group's rows */
export function placeDimensionIds({ rows }: { rows: Pick<RowsToWrite, "location" | "network"> }, ids: Record<DimensionTable, number[]>): void {
  for (let i = 0; i < rows.location.length; i++) {
    const location = rows.location[i]!;
    if (location < 0) rows.location[i] = ids.locations[-location - 1]!;
    const network = rows.network[i]!;
    if (network < 0) rows.network[i] = ids.networks[-network - 1]!;
  }
}

/**
 * Columns with no rows, or with room for `rows` rows to be set by index: a bulk's columns made by
 * `push` were copied each time they grew, ~2 MB of garbage a 5000-row group.
 */
export function emptyColumns(rows = 0): ConversionColumns {
  const column = <T>() => new Array<T>(rows);
  return {
    project: column(),
    unique_id: column(),
    status: column(),
    ip: column(),
    ip_key: column(),
    started_at: column(),
    completed_ms: column(),
    created_ms: column(),
    location: column(),
    network: column(),
    tz_offset: column(),
    time_shift: column(),
    completion_us: column(),
    extra: column(),
    seq: column(),
  };
}
