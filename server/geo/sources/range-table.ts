/**
 * Sorted, non-overlapping address ranges in typed arrays, searched by bisection. IPv4 bounds are
 * one uint32 each; IPv6 bounds are four big-endian uint32 words each. Each range carries one
 * uint32 value (an index into the table's own list of values).
 */
export class RangeTable {
  /**
   * IPv4 only: for each /16 prefix p, the first range starting at or after p.0.0 (entry 65536 is
   * the size). Bisection then runs over the few ranges of one /16 instead of the whole table.
   */
  private readonly firstOf16: Uint32Array | null = null;

  constructor(
    /** 1 word per bound for IPv4, 4 for IPv6 */
    readonly words: 1 | 4,
    readonly starts: Uint32Array,
    readonly ends: Uint32Array,
    readonly values: Uint32Array,
  ) {
    if (words === 1) {
      const firstOf16 = new Uint32Array(65537);
      let range = 0;
      for (let prefix = 0; prefix <= 65536; prefix++) {
        while (range < starts.length && starts[range]! < prefix * 65536) range++;
        firstOf16[prefix] = range;
      }
      this.firstOf16 = firstOf16;
    }
  }

  get size(): number {
    return this.values.length;
  }

  /** Value of the range holding the address (its `words` uint32 words), or -1. */
  find(address: ArrayLike<number>): number {
    return this.words === 1 ? this.find4(address[0]!) : this.find6(address);
  }

  private find4(ip: number): number {
    const starts = this.starts;
    const prefix = ip >>> 16;
    // The range holding ip starts in its /16 or is the last one starting before it.
    let low = Math.max(this.firstOf16![prefix]! - 1, 0);
    let high = this.firstOf16![prefix + 1]! - 1;
    let hit = -1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      if (starts[mid]! <= ip) {
        hit = mid;
        low = mid + 1;
      } else high = mid - 1;
    }
    return hit >= 0 && this.ends[hit]! >= ip ? this.values[hit]! : -1;
  }

  private find6(address: ArrayLike<number>): number {
    let low = 0;
    let high = this.values.length - 1;
    let hit = -1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      if (compare6(this.starts, mid * 4, address) <= 0) {
        hit = mid;
        low = mid + 1;
      } else high = mid - 1;
    }
    return hit >= 0 && compare6(this.ends, hit * 4, address) >= 0 ? this.values[hit]! : -1;
  }
}

/** Sign of (bound at `offset`) - address, both as four big-endian words. */
function compare6(bounds: Uint32Array, offset: number, address: ArrayLike<number>): number {
  for (let i = 0; i < 4; i++) {
    const a = bounds[offset + i]!;
    const b = address[i]!;
    if (a !== b) return a < b ? -1 : 1;
  }
  return 0;
}

/** Collects ranges in file order (the sources are sorted) into a RangeTable, in growing typed arrays. */
export class RangeTableBuilder {
  private starts: Uint32Array<ArrayBuffer> = new Uint32Array(1024);
  private ends: Uint32Array<ArrayBuffer> = new Uint32Array(1024);
  private values: Uint32Array<ArrayBuffer> = new Uint32Array(1024);
  private count = 0;
  constructor(readonly words: 1 | 4) {}

  add(start: ArrayLike<number>, end: ArrayLike<number>, value: number): void {
    if ((this.count + 1) * this.words > this.starts.length) this.grow();
    const at = this.count * this.words;
    for (let i = 0; i < this.words; i++) {
      this.starts[at + i] = start[i]!;
      this.ends[at + i] = end[i]!;
    }
    if (this.count >= this.values.length) this.values = grown(this.values);
    this.values[this.count++] = value;
  }

  build(): RangeTable {
    const bounds = this.count * this.words;
    return new RangeTable(this.words, this.starts.slice(0, bounds), this.ends.slice(0, bounds), this.values.slice(0, this.count));
  }

  private grow(): void {
    this.starts = grown(this.starts);
    this.ends = grown(this.ends);
  }
}

function grown(array: Uint32Array<ArrayBuffer>): Uint32Array<ArrayBuffer> {
  const bigger = new Uint32Array(array.length * 2);
  bigger.set(array);
  return bigger;
}

/** Address bytes (4 or 16) to the table's words. */
export function addressWords(bytes: ArrayLike<number>): number[] {
  const words: number[] = [];
  for (let i = 0; i < bytes.length; i += 4) {
    words.push(((bytes[i]! << 24) | (bytes[i + 1]! << 16) | (bytes[i + 2]! << 8) | bytes[i + 3]!) >>> 0);
  }
  return words;
}
