/**
 * Walks one value of an MMDB data section (MaxMind DB format 2.0, "Data Section") without building
 * it, checking what a decoder would silently get wrong: sizes that run past the section, doubles
 * that are not 8 bytes, floats that are not 4, integers wider than their type, unknown types and
 * pointers out of range. The decoder (mmdb-decoder.ts), like mmdb-lib's, trusts these, so a
 * corrupt file would otherwise decode as plausible garbage.
 */
import { LONG_SIZE_BASE, MMDB_TYPE, pointerTarget } from "./mmdb-format.js";

const { POINTER, UTF8, DOUBLE, BYTES, UINT16, UINT32, MAP, INT32, UINT64, UINT128, ARRAY, BOOLEAN, FLOAT } = MMDB_TYPE;
/** largest payload each integer type may have */
const INTEGER_BYTES: Record<number, number> = { [UINT16]: 2, [UINT32]: 4, [INT32]: 4, [UINT64]: 8, [UINT128]: 16 };

export class MmdbDataScanner {
  private readonly seen = new Set<number>();

  constructor(
    private readonly buffer: Buffer,
    private readonly dataStart: number,
    private readonly dataSize: number,
  ) {}

  /** Checks the value at `offset` (relative to the data section); throws on the first defect. */
  scan(offset: number, depth = 0): number {
    if (depth > 64) throw new Error("data nesting too deep");
    const buffer = this.buffer;
    const end = this.dataStart + this.dataSize;
    // Bytes are read in place after one bounds check per field: a reader closure made at each
    // call (once per value of 20,000 records, and named at each call under tsx) cost a third of
    // a file's check.
    let at = this.dataStart + offset;
    ensure(at, 1, end);
    const control = buffer[at++]!;
    if (control >> 5 === POINTER) {
      const sizeBits = (control >> 3) & 3;
      ensure(at, sizeBits + 1, end);
      const target = pointerTarget(buffer, control, at);
      at += sizeBits + 1;
      if (target >= this.dataSize) throw new Error("data pointer out of range");
      if (!this.seen.has(target)) {
        this.seen.add(target);
        this.scan(target, depth + 1);
      }
      return at - this.dataStart;
    }
    const { type, size, next } = valueHeader(buffer, at - 1, end);
    at = next;

    if (type === MAP || type === ARRAY) {
      let item = at - this.dataStart;
      for (let i = 0; i < size * (type === MAP ? 2 : 1); i++) item = this.scan(item, depth + 1);
      return item;
    }
    if (type === BOOLEAN) {
      if (size > 1) throw new Error("boolean of bad size");
      return at - this.dataStart;
    }
    if (type === DOUBLE && size !== 8) throw new Error(`double of ${size} bytes`);
    if (type === FLOAT && size !== 4) throw new Error(`float of ${size} bytes`);
    if (INTEGER_BYTES[type] !== undefined && size > INTEGER_BYTES[type]!) throw new Error(`integer type ${type} of ${size} bytes`);
    if (type !== UTF8 && type !== DOUBLE && type !== FLOAT && type !== BYTES && INTEGER_BYTES[type] === undefined) {
      throw new Error(`unknown data type ${type}`);
    }
    if (at + size > end) throw new Error("data value runs past the data section");
    return at + size - this.dataStart;
  }
}

/**
 * The type and size of the value whose control byte is at `at` (not a pointer: its size bits mean
 * something else), and where its payload starts; throws where the header runs past `end`.
 */
export function valueHeader(buffer: Buffer, at: number, end: number): { type: number; size: number; next: number } {
  ensure(at, 1, end);
  const control = buffer[at++]!;
  let type = control >> 5;
  if (type === 0) {
    ensure(at, 1, end);
    type = 7 + buffer[at++]!;
  }
  let size = control & 0x1f;
  if (size >= 29) {
    const width = size - 28;
    ensure(at, width, end);
    size = LONG_SIZE_BASE[width - 1]! + buffer.readUIntBE(at, width);
    at += width;
  }
  return { type, size, next: at };
}

/** throws unless `count` bytes from `at` lie before `end` */
function ensure(at: number, count: number, end: number): void {
  if (at + count > end) throw new Error("data value runs past the data section");
}
