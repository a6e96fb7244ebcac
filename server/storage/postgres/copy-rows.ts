/**
 * A group's rows in PostgreSQL's binary COPY format (`COPY … FROM STDIN (FORMAT binary)`), how
 * dialect.ts writes a bulk: PostgreSQL reads these values as they are, where an
 * `INSERT … SELECT FROM unnest(…)` first parses one array literal per column. For 5000 rows into
 * a table of 1M it took ~40% less time (docs/storage.md "Group commit").
 *
 * Made in time slices before the transaction; the row numbers (`seq`, the last column) are known
 * only once the quota is reserved, so each row's is written in then (`numberCopyRows`), into the
 * place kept for it.
 */
import type { ConversionColumns } from "../dialect.js";
import { TimeSlice } from "../../time-slice.js";
import { UUID_BYTES, writeUuidBytes } from "../uuid-bytes.js";

/** the types a column may have here, as PostgreSQL names them */
export type CopyType = "smallint" | "integer" | "bigint" | "uuid" | "text" | "bytea";

export interface CopyRows {
  /** the whole COPY data: header, rows, trailer */
  bytes: Buffer;
  /** where each row's `seq` value starts in `bytes` */
  seqAt: Uint32Array;
  /** where each row's value of an integer column written again later (copyRows' `rewritten`) starts */
  valueAt: Partial<Record<keyof ConversionColumns, Uint32Array>>;
}

type Value = string | number | Uint8Array | null | undefined;

/** "PGCOPY\n\377\r\n\0", then no flags and no header extension */
const HEADER = Buffer.from("PGCOPY\n\xff\r\n\0\0\0\0\0\0\0\0\0", "latin1");
const TRAILER = -1;
/** bytes a row takes before its texts: field count, a length per field, the fixed-size values */
const ROW_BYTES_GUESS = 160;

/**
 * The rows of `columns` (`names` in order, typed by `types`; `seq` must be the last), ready to
 * send. A value that does not fit its column's type fails the whole group, as PostgreSQL would.
 * `rewritten`: integer columns, none null, whose values may be written again (rewriteIntegers).
 */
export async function copyRows(
  columns: ConversionColumns,
  names: ReadonlyArray<keyof ConversionColumns>,
  types: Record<keyof ConversionColumns, CopyType>,
  slice = new TimeSlice(),
  rewritten: ReadonlyArray<keyof ConversionColumns> = [],
): Promise<CopyRows> {
  if (names[names.length - 1] !== "seq") throw new Error("seq must be the last column");
  if (rewritten.some((name) => types[name] !== "integer")) throw new Error("only integer columns are written again");
  const rows = columns.project.length;
  const out = new Output(HEADER.length + rows * ROW_BYTES_GUESS + 2);
  out.buffer.set(HEADER, 0);
  out.at = HEADER.length;
  const seqAt = new Uint32Array(rows);
  // every column but seq, a writer each, chosen once: the row loop then makes no choice by type
  const numbered = names.slice(0, -1);
  const writers = numbered.map((name) => WRITERS[types[name]]);
  const values = numbered.map((name) => columns[name] as readonly Value[]);
  const valueAt: CopyRows["valueAt"] = {};
  const kept = numbered.map((name) => (rewritten.includes(name) ? (valueAt[name] = new Uint32Array(rows)) : null));
  await slice.begin(rows);
  for (let row = 0; row < rows; row++) {
    if (slice.due()) await slice.pause();
    out.int16(names.length);
    for (let i = 0; i < writers.length; i++) {
      const value = values[i]![row];
      if (kept[i]) {
        if (value === null || value === undefined) throw new Error(`${numbered[i]} is written again: it cannot be null`);
        // after the field's length
        kept[i]![row] = out.at + 4;
      }
      if (value === null || value === undefined) out.length(-1);
      else writers[i]!(out, value);
    }
    // seq: eight bytes kept whatever the column holds now, filled by numberCopyRows
    out.length(8);
    seqAt[row] = out.at;
    writeInt64(out.buffer, out.at, 0);
    out.at += 8;
  }
  out.int16(TRAILER);
  return { bytes: out.buffer.subarray(0, out.at), seqAt, valueAt };
}

/** writes `values` (one a row) over the integer column `name`'s, which copyRows kept the places of */
export function rewriteIntegers(copy: CopyRows, name: keyof ConversionColumns, values: ArrayLike<number>): void {
  const at = copy.valueAt[name];
  if (!at) throw new Error(`${name} was not kept to be written again`);
  for (let row = 0; row < at.length; row++) writeInt32(copy.bytes, at[row]!, int32(values[row]));
}

/** writes the rows' numbers (`seq[row]`, as numberRows set them) into their places */
export function numberCopyRows(copy: CopyRows, seq: readonly number[]): void {
  for (let row = 0; row < copy.seqAt.length; row++) writeInt64(copy.bytes, copy.seqAt[row]!, integer(seq[row]));
}

/** a growing buffer; `at` is where the next byte goes */
class Output {
  buffer: Buffer;
  at = 0;

  constructor(size: number) {
    this.buffer = Buffer.allocUnsafe(size);
  }

  room(bytes: number): void {
    if (this.at + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.at + bytes));
    this.buffer.copy(grown, 0, 0, this.at);
    this.buffer = grown;
  }

  int16(value: number): void {
    this.room(2);
    this.buffer[this.at++] = value >> 8;
    this.buffer[this.at++] = value;
  }

  /** a field's length (-1: NULL) with room for the field */
  length(bytes: number): void {
    this.room(4 + Math.max(bytes, 0));
    writeInt32(this.buffer, this.at, bytes);
    this.at += 4;
  }
}

/** PostgreSQL's binary field encodings: the length, then the value in network byte order */
const WRITERS: Record<CopyType, (out: Output, value: NonNullable<Value>) => void> = {
  smallint(out, value) {
    const n = integer(value);
    if (n < -32768 || n > 32767) throw new RangeError(`Out of range for smallint: ${n}`);
    out.length(2);
    out.buffer[out.at++] = n >> 8;
    out.buffer[out.at++] = n;
  },
  integer(out, value) {
    const n = int32(value);
    out.length(4);
    writeInt32(out.buffer, out.at, n);
    out.at += 4;
  },
  bigint(out, value) {
    const n = integer(value);
    out.length(8);
    writeInt64(out.buffer, out.at, n);
    out.at += 8;
  },
  uuid(out, value) {
    out.length(UUID_BYTES);
    // the 8-4-4-4-12 form only, as conversion ids are written
    if (typeof value !== "string" || value.length !== 36 || !writeUuidBytes(value, out.buffer, out.at)) throw new Error(`Not a uuid: ${String(value)}`);
    out.at += UUID_BYTES;
  },
  text(out, value) {
    if (typeof value !== "string") throw new Error(`Not a text value: ${typeof value}`);
    // UTF-8 takes at most three bytes a UTF-16 unit
    out.room(4 + value.length * 3);
    const { buffer } = out;
    const start = out.at + 4;
    // short ASCII (an address) byte by byte: cheaper than a call into the encoder
    let ascii = value.length <= 64;
    for (let i = 0; ascii && i < value.length; i++) {
      const code = value.charCodeAt(i);
      if (code < 0x80) buffer[start + i] = code;
      else ascii = false;
    }
    const written = ascii ? value.length : buffer.write(value, start, "utf8");
    writeInt32(buffer, out.at, written);
    out.at = start + written;
  },
  bytea(out, value) {
    if (!(value instanceof Uint8Array)) throw new Error(`Not a bytea value: ${typeof value}`);
    out.length(value.length);
    out.buffer.set(value, out.at);
    out.at += value.length;
  },
};

function int32(value: Value): number {
  const n = integer(value);
  if (n < -2147483648 || n > 2147483647) throw new RangeError(`Out of range for integer: ${n}`);
  return n;
}

function integer(value: Value): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value)) throw new Error(`Not a storable integer: ${String(value)}`);
  return value;
}

function writeInt32(buffer: Buffer, at: number, value: number): void {
  buffer[at] = value >>> 24;
  buffer[at + 1] = value >>> 16;
  buffer[at + 2] = value >>> 8;
  buffer[at + 3] = value;
}

/** a safe integer as a signed 64-bit value */
function writeInt64(buffer: Buffer, at: number, value: number): void {
  const high = Math.floor(value / 2 ** 32);
  writeInt32(buffer, at, high);
  writeInt32(buffer, at + 4, value - high * 2 ** 32);
}
