/**
 * The SQLite write connection on its own thread: conversions (quota reservation and rows, one
 * transaction per group) and new location and network rows are written by `writer-thread.ts`, so
 * the event loop goes on answering while a 5000-row group is inserted. The caller still waits
 * for the commit. Reads stay on the main thread's connection (WAL lets them run alongside), but
 * for the list's scans (./reader.ts).
 *
 * What crosses the thread boundary is cheap to copy: a group's numbers in one Float64Array, its
 * ip keys and its ids' bytes in one Uint8Array each (all three transferred, not copied), its other
 * strings as two arrays.
 */
import { byTable, NUMBER_COLUMNS, placeDimensionIds, type DimensionTable, type GroupBatch, type GroupToWrite, type NumberColumnName, type ResumedPiece, type RowsToWrite, type WriteResult } from "../dialect.js";
import type { SavedPart } from "../record-codec.js";
import { UUID_BYTES, writeUuidBytes } from "../uuid-bytes.js";
import { ThreadChannel } from "./thread-channel.js";

/** one ip key slot: its length (0: none), then up to 17 bytes */
const KEY_SLOT = 18;

export interface PackedGroup {
  batches: GroupBatch[];
  /** NUMBER_COLUMNS one after the other, null as NaN */
  numbers: Float64Array;
  ipKeys: Uint8Array;
  /** each row's id as its 16 bytes, the form SQLite stores */
  uniqueIds: Uint8Array;
  ips: Array<string | null>;
  extras: Array<string | null>;
  /** a light group's new parts (ConversionGroup.newDimensions), saved in its transaction */
  dims?: Record<DimensionTable, SavedPart[]>;
}

export function packGroup({ batches, rows, newDimensions }: GroupToWrite): PackedGroup {
  const count = rows.project.length;
  const numbers = new Float64Array(count * NUMBER_COLUMNS.length);
  const ipKeys = new Uint8Array(count * KEY_SLOT);
  const uniqueIds = new Uint8Array(count * UUID_BYTES);
  NUMBER_COLUMNS.forEach((name, c) => {
    const column = rows[name];
    for (let i = 0, at = c * count; i < count; i++) numbers[at++] = column[i] ?? NaN;
  });
  for (let i = 0; i < count; i++) {
    const key = rows.ip_key[i];
    if (key) {
      ipKeys[i * KEY_SLOT] = key.length;
      ipKeys.set(key, i * KEY_SLOT + 1);
    }
    const id = rows.unique_id[i]!;
    if (typeof id === "string") writeUuidBytes(id, uniqueIds, i * UUID_BYTES);
    else uniqueIds.set(id, i * UUID_BYTES);
  }
  const packed: PackedGroup = { batches, numbers, ipKeys, uniqueIds, ips: rows.ip, extras: rows.extra };
  if (newDimensions) packed.dims = partsOnly(newDimensions);
  return packed;
}

/** the key and text alone: a Dimension's `savedIn` is the core's whole id map */
function partsOnly(dims: Record<DimensionTable, SavedPart[]>): Record<DimensionTable, SavedPart[]> {
  return byTable((table) => dims[table].map(({ key, json }) => ({ key, json })));
}

/** what postMessage moves rather than copies */
export function transferList(packed: PackedGroup): ArrayBuffer[] {
  return [packed.numbers.buffer, packed.ipKeys.buffer, packed.uniqueIds.buffer] as ArrayBuffer[];
}

/** a numeric column of the packed group, as a view of its `numbers` */
function numberColumn({ numbers, ips }: PackedGroup, name: NumberColumnName): Float64Array {
  const at = NUMBER_COLUMNS.indexOf(name) * ips.length;
  return numbers.subarray(at, at + ips.length);
}

/** the group as the thread writes it: each numeric column a view of `numbers` (RowsToWrite) */
export function unpackGroup(packed: PackedGroup): GroupToWrite {
  const count = packed.ips.length;
  const { ipKeys, uniqueIds } = packed;
  const ipKey = new Array<Uint8Array | null>(count);
  const uniqueId = new Array<Uint8Array>(count);
  for (let i = 0; i < count; i++) {
    const length = ipKeys[i * KEY_SLOT]!;
    ipKey[i] = length ? ipKeys.subarray(i * KEY_SLOT + 1, i * KEY_SLOT + 1 + length) : null;
    uniqueId[i] = uniqueIds.subarray(i * UUID_BYTES, (i + 1) * UUID_BYTES);
  }
  const columns = Object.fromEntries(NUMBER_COLUMNS.map((name) => [name, numberColumn(packed, name)])) as Record<NumberColumnName, Float64Array>;
  const rows: RowsToWrite = { ...columns, unique_id: uniqueId, ip: packed.ips, ip_key: ipKey, extra: packed.extras, seq: new Array<number>(count).fill(0) };
  return packed.dims ? { batches: packed.batches, rows, newDimensions: packed.dims } : { batches: packed.batches, rows };
}

export type WriterRequest =
  | { kind: "write"; group: PackedGroup }
  | { kind: "dimensions"; dims: Record<DimensionTable, SavedPart[]> }
  | { kind: "touch"; uses: Array<{ keyId: string; at: number }> }
  | { kind: "resume"; batch: ResumedPiece }
  | { kind: "abort"; bulk: number };

export interface WriterOptions {
  dataDir: string;
  synchronous?: "FULL" | "NORMAL";
  /** false: the thread's connection leaves checkpoints to the thread's timer */
  autocheckpoint?: boolean;
  /** the main connection's owner of open bulks, which the thread's writes open in its name */
  owner?: string;
}

/** The main thread's end: each call is a numbered request; its promise settles with the reply of that number. */
export class SqliteWriter {
  /**
   * Shared with the thread: 1 while a light request waits behind the group being written, so a
   * bulk in it commits what it has and lets that request go first (SqliteOptions.writerWanted).
   */
  readonly wanted = new Int32Array(new SharedArrayBuffer(4));
  private readonly thread: ThreadChannel<WriterRequest>;

  constructor(options: WriterOptions) {
    this.thread = new ThreadChannel(new URL("./writer-thread.ts", import.meta.url), { ...options, writerWanted: this.wanted }, "writer");
  }

  /** whether the thread failed or ended */
  get stopped(): boolean {
    return this.thread.stopped;
  }

  /** whether the thread has a write in flight (SqliteDialect.writeConversions) */
  get busy(): boolean {
    return this.thread.busy;
  }

  /** `sent`: called once the group is posted to the thread */
  async writeConversions(group: GroupToWrite, sent?: () => void): Promise<WriteResult[]> {
    const packed = packGroup(group);
    // packed while the bulk's new parts are saved; their ids go in when they come
    if (group.savingDimensions) placeDimensionIds({ rows: { location: numberColumn(packed, "location"), network: numberColumn(packed, "network") } }, await group.savingDimensions);
    const reply = this.thread.request({ kind: "write", group: packed }, transferList(packed));
    sent?.();
    return reply as Promise<WriteResult[]>;
  }

  /** the next piece of a bulk whose rows the thread kept; null when it has none (writer-thread.ts) */
  resumeBulk(batch: ResumedPiece): Promise<WriteResult | null> {
    return this.thread.request({ kind: "resume", batch }) as Promise<WriteResult | null>;
  }

  abortBulk(bulk: number): Promise<void> {
    return this.thread.request({ kind: "abort", bulk }) as Promise<void>;
  }

  saveDimensions(dims: Record<DimensionTable, SavedPart[]>): Promise<Record<DimensionTable, number[]>> {
    return this.thread.request({ kind: "dimensions", dims: partsOnly(dims) }) as Promise<Record<DimensionTable, number[]>>;
  }

  touchKeys(uses: Array<{ keyId: string; at: number }>): Promise<void> {
    return this.thread.request({ kind: "touch", uses }) as Promise<void>;
  }

  /** Every write was answered by then: the core drained its queue first. */
  close(): Promise<void> {
    return this.thread.close();
  }
}
