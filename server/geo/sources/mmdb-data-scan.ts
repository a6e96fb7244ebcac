/**
 * Walks one value of an MMDB data section (MaxMind DB format 2.0, "Data Section") without building
 * it, checking what a decoder would silently get wrong: sizes that run past the section, doubles
 * that are not 8 bytes, floats that are not 4, integers wider than their type, unknown types and
 * pointers out of range. mmdb-lib trusts these, so a corrupt file would otherwise decode as
 * plausible garbage.
 */
const POINTER = 1;
const UTF8 = 2;
const DOUBLE = 3;
const MAP = 7;
const ARRAY = 11;
const BOOLEAN = 14;
const FLOAT = 15;
/** largest payload each integer type may have */
const INTEGER_BYTES: Record<number, number> = { 5: 2, 6: 4, 8: 4, 9: 8, 10: 16 };

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
    let at = this.dataStart + offset;
    const byte = () => {
      if (at >= end) throw new Error("data value runs past the data section");
      return buffer[at++]!;
    };
    const control = byte();
    let type = control >> 5;
    if (type === POINTER) {
      const sizeBits = (control >> 3) & 3;
      let target = 0;
      if (sizeBits === 0) target = ((control & 7) << 8) | byte();
      else if (sizeBits === 1) target = (((control & 7) << 16) | (byte() << 8) | byte()) + 2048;
      else if (sizeBits === 2) target = (((control & 7) << 24) | (byte() << 16) | (byte() << 8) | byte()) + 526336;
      else target = ((byte() << 24) | (byte() << 16) | (byte() << 8) | byte()) >>> 0;
      if (target >= this.dataSize) throw new Error("data pointer out of range");
      if (!this.seen.has(target)) {
        this.seen.add(target);
        this.scan(target, depth + 1);
      }
      return at - this.dataStart;
    }
    if (type === 0) type = 7 + byte();
    let size = control & 0x1f;
    if (size === 29) size = 29 + byte();
    else if (size === 30) size = 285 + ((byte() << 8) | byte());
    else if (size === 31) size = 65821 + ((byte() << 16) | (byte() << 8) | byte());

    if (type === MAP || type === ARRAY) {
      let next = at - this.dataStart;
      for (let i = 0; i < size * (type === MAP ? 2 : 1); i++) next = this.scan(next, depth + 1);
      return next;
    }
    if (type === BOOLEAN) {
      if (size > 1) throw new Error("boolean of bad size");
      return at - this.dataStart;
    }
    if (type === DOUBLE && size !== 8) throw new Error(`double of ${size} bytes`);
    if (type === FLOAT && size !== 4) throw new Error(`float of ${size} bytes`);
    if (INTEGER_BYTES[type] !== undefined && size > INTEGER_BYTES[type]!) throw new Error(`integer type ${type} of ${size} bytes`);
    if (type !== UTF8 && type !== DOUBLE && type !== FLOAT && type !== 4 && INTEGER_BYTES[type] === undefined) {
      throw new Error(`unknown data type ${type}`);
    }
    if (at + size > end) throw new Error("data value runs past the data section");
    return at + size - this.dataStart;
  }
}
