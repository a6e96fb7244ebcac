/**
 * How an .mmdb data section encodes its values (MaxMind DB format 2.0, "Data Section"): what the
 * file check (mmdb-data-scan.ts), the metadata reader (mmdb-metadata.ts) and the decoder
 * (mmdb-decoder.ts) all read.
 */

/** the value types; an extended type (control byte type 0) is 7 plus the next byte */
export const MMDB_TYPE = {
  POINTER: 1,
  UTF8: 2,
  DOUBLE: 3,
  BYTES: 4,
  UINT16: 5,
  UINT32: 6,
  MAP: 7,
  INT32: 8,
  UINT64: 9,
  UINT128: 10,
  ARRAY: 11,
  BOOLEAN: 14,
  FLOAT: 15,
} as const;

/** sizes 29, 30 and 31 say that 1, 2 or 3 more bytes follow, added to these */
export const LONG_SIZE_BASE = [29, 285, 65821];

/**
 * Where a pointer leads, counted from the start of the data section: `control` is its control
 * byte, and its (control >> 3 & 3) + 1 value bytes start at `at`.
 */
export function pointerTarget(buffer: Buffer, control: number, at: number): number {
  const size = (control >> 3) & 3;
  if (size === 0) return ((control & 7) << 8) | buffer[at]!;
  if (size === 1) return (((control & 7) << 16) | (buffer[at]! << 8) | buffer[at + 1]!) + 2048;
  if (size === 2) return (((control & 7) << 24) | (buffer[at]! << 16) | (buffer[at + 1]! << 8) | buffer[at + 2]!) + 526336;
  return buffer.readUInt32BE(at);
}
