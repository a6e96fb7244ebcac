/**
 * Decodes values of an .mmdb data section (MaxMind DB format 2.0, "Data Section") into the same
 * values mmdb-lib's decoder makes (mmdb-decoder.test.ts compares them), without its wrappers:
 * mmdb-lib returns every value it reads, map keys and strings included, inside a `{ value, offset }`
 * object and caches what pointers lead to as such objects. On random addresses that was a third
 * of what a 5000-address POST allocated, and decoding took 2.2-2.9 µs a lookup against 1.2-1.9
 * here (docs/performance.md "2026-11-30, late morning"). Here a value is returned as itself, the
 * position after it is kept on the decoder, and the cache holds the values.
 *
 * The file was checked before it serves (mmdb-check.ts walks every value): sizes and pointers
 * are trusted here as mmdb-lib trusts them.
 */
import { LONG_SIZE_BASE, MMDB_TYPE, pointerTarget } from "./mmdb-format.js";

/** What pointers lead to, by offset in the file: a record (the value a tree record points at) or a value it shares. */
export interface MmdbValueCache {
  get(offset: number): unknown;
  set(offset: number, value: unknown): void;
}

const NO_CACHE: MmdbValueCache = { get: () => undefined, set: () => {} };

const { POINTER, UTF8, DOUBLE, BYTES, UINT16, UINT32, MAP, INT32, UINT64, UINT128, ARRAY, BOOLEAN, FLOAT } = MMDB_TYPE;

export class MmdbDecoder {
  /** the position right after the value read last */
  private end = 0;

  /** `dataStart`: where the data section starts in `db`, which the pointers inside it count from */
  constructor(
    private readonly db: Buffer,
    private readonly dataStart: number,
    private readonly cache: MmdbValueCache = NO_CACHE,
  ) {}

  /** The value at `offset` in the file (a tree record's data), through the cache. */
  valueAt(offset: number): unknown {
    const cached = this.cache.get(offset);
    if (cached !== undefined) return cached;
    const value = this.read(offset);
    this.cache.set(offset, value);
    return value;
  }

  /** the value at `offset`; leaves `end` after it */
  private read(offset: number): unknown {
    const db = this.db;
    const control = db[offset++]!;
    let type = control >> 5;
    if (type === POINTER) {
      const after = offset + ((control >> 3) & 3) + 1;
      const value = this.valueAt(this.dataStart + pointerTarget(db, control, offset));
      this.end = after;
      return value;
    }
    if (type === 0) {
      type = db[offset]! + 7;
      if (type < 8) throw new Error(`Invalid Extended Type at offset ${offset} val ${type}`);
      offset++;
    }
    let size = control & 0x1f;
    if (size >= 29) {
      const width = size - 28;
      size = LONG_SIZE_BASE[width - 1]! + db.readUIntBE(offset, width);
      offset += width;
    }
    switch (type) {
      case UTF8:
        this.end = offset + size;
        return db.toString("utf8", offset, offset + size);
      case MAP: {
        const map: Record<string, unknown> = {};
        for (let i = 0; i < size; i++) {
          const key = this.read(offset) as string;
          map[key] = this.read(this.end);
          offset = this.end;
        }
        this.end = offset;
        return map;
      }
      case UINT32:
      case UINT16:
        this.end = offset + size;
        if (size === 0) return 0;
        if (size <= 4) return db.readUIntBE(offset, size);
        throw new Error(`Invalid size for unsigned integer: ${size}`);
      case DOUBLE:
        this.end = offset + size;
        return db.readDoubleBE(offset);
      case ARRAY: {
        const array = new Array(size);
        for (let i = 0; i < size; i++) {
          array[i] = this.read(offset);
          offset = this.end;
        }
        this.end = offset;
        return array;
      }
      case BOOLEAN:
        // the size is the value; nothing follows
        this.end = offset;
        return size !== 0;
      case FLOAT:
        this.end = offset + size;
        return db.readFloatBE(offset);
      case BYTES:
        this.end = offset + size;
        return db.subarray(offset, offset + size);
      case INT32:
        this.end = offset + size;
        if (size === 0) return 0;
        if (size < 4) return db.readUIntBE(offset, size);
        return db.readInt32BE(offset);
      case UINT64:
      case UINT128: {
        this.end = offset + size;
        if (size > 16) throw new Error(`Invalid size for big unsigned integer: ${size}`);
        let integer = 0n;
        for (let i = 0; i < size; i++) integer = (integer << 8n) | BigInt(db[offset + i]!);
        return integer;
      }
    }
    throw new Error(`Unknown type ${type} at offset ${offset}`);
  }
}
