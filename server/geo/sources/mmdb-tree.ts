/**
 * Looks an address up in an .mmdb search tree from its bytes. maxmind's `reader.get()` takes
 * text and parses it again, which on the bundled data is a fifth of a lookup; the engine has
 * already parsed (strictly) and has the bytes. The walk down the tree is done here, on the
 * reader's buffer, and the record it reaches is decoded by mmdb-decoder.ts; the reader is kept
 * for the file's metadata. Records of 24 bits
 * (GeoLite2-ASN, GeoLite2-Country), 28 (the bundled DB-IP files, the City files) and 32 are read,
 * the three sizes the MaxMind DB format defines; another is refused at start.
 */
import type { Reader, Response } from "maxmind";
import { MmdbDecoder, type MmdbValueCache } from "./mmdb-decoder.js";

interface ReaderInternals {
  ipv4StartNodeNumber: number;
}

export class MmdbTree {
  private readonly nodeCount: number;
  private readonly nodeByteSize: number;
  private readonly recordSize: number;
  private readonly ipVersion: number;
  /** a data record's offset in the file is its record value minus this */
  private readonly recordToOffset: number;
  private readonly decoder: MmdbDecoder;
  private readonly internals: ReaderInternals;
  /**
   * IPv4 addresses: the record reached after the first 16 bits of each /16 prefix, once `index`
   * made it. The first levels of the walk are the same for every address of a /16; starting
   * halfway saves 16 of 32 node reads.
   */
  private afterFirst16: Uint32Array | null = null;

  /** `cache`: the decoded records (and what their pointers share), by offset in the file */
  constructor(
    reader: Reader<Response>,
    private readonly db: Buffer,
    cache?: MmdbValueCache,
  ) {
    const { nodeCount, nodeByteSize, recordSize, ipVersion, searchTreeSize } = reader.metadata;
    if (recordSize !== 24 && recordSize !== 28 && recordSize !== 32) throw new Error(`unsupported record size ${recordSize}`);
    this.recordSize = recordSize;
    this.nodeCount = nodeCount;
    this.nodeByteSize = nodeByteSize;
    this.ipVersion = ipVersion;
    // the format's offset in the file of a record's data: (record - node count) + tree size; the
    // data section, which pointers count from, starts 16 bytes of zeros after the tree
    this.recordToOffset = nodeCount - searchTreeSize;
    this.decoder = new MmdbDecoder(db, searchTreeSize + 16, cache);
    this.internals = reader as unknown as ReaderInternals;
  }

  /**
   * Makes the table of the first 16 levels (afterFirst16) that IPv4 lookups start from. Apart
   * from the constructor because the file check (mmdb-check.ts) walks the tree before it is known
   * to be good, and reads every node of it: built after that walk, the table reads nodes already
   * in memory (1.3-4 ms on a City file) rather than the buffer's fresh pages (28-40 ms here).
   */
  index(): this {
    // IPv6 trees (MaxMind's files) hold IPv4 under ::/96; the table starts there.
    const ipv4Start = this.ipVersion === 4 ? 0 : this.internals.ipv4StartNodeNumber;
    if (ipv4Start < this.nodeCount) this.afterFirst16 ??= this.levelOf(ipv4Start, 16);
    return this;
  }

  /**
   * The record reached from `start` after each of the 2^depth bit paths of `depth` bits, one
   * level at a time: a node's two children are read once for all the prefixes below it (131,070
   * reads for 16 levels instead of 16 for each of 65,536 prefixes: 1.3-2 ms instead of ~8 on a
   * City file, paid on the event loop when a reloaded file is swapped in). A record that ends the
   * walk early (data or nothing) stands for every prefix below it.
   */
  private levelOf(start: number, depth: number): Uint32Array {
    let level = Uint32Array.of(start);
    for (let d = 0; d < depth; d++) {
      const next = new Uint32Array(level.length * 2);
      for (let i = 0; i < level.length; i++) {
        const node = level[i]!;
        const offset = node * this.nodeByteSize;
        next[2 * i] = node < this.nodeCount ? this.nodeRecord(offset, 0) : node;
        next[2 * i + 1] = node < this.nodeCount ? this.nodeRecord(offset, 1) : node;
      }
      level = next;
    }
    return level;
  }

  /** The record for 4 or 16 address bytes, or null. */
  lookup(bytes: ArrayLike<number>): unknown {
    const bits = bytes.length * 8;
    if (bits === 128 && this.ipVersion === 4) return null;
    const nodeCount = this.nodeCount;
    let node = bits === 32 && this.ipVersion === 6 ? this.internals.ipv4StartNodeNumber : 0;
    let depth = 0;
    if (this.afterFirst16 && bits === 32) {
      node = this.afterFirst16[(bytes[0]! << 8) | bytes[1]!]!;
      depth = 16;
    }
    for (; depth < bits && node < nodeCount; depth++) {
      const bit = (bytes[depth >> 3]! >> (7 - (depth & 7))) & 1;
      node = this.nodeRecord(node * this.nodeByteSize, bit);
    }
    return node > nodeCount ? this.decoder.valueAt(node - this.recordToOffset) : null;
  }

  /**
   * One of the two records (`bit` 0: left, 1: right) of the node at byte `offset`, big-endian: 28
   * bits are 3 bytes each with the middle byte's nibbles on top; 24 and 32 bits are 3 and 4 whole
   * bytes. The file check (mmdb-check.ts) reads every node through here too.
   */
  nodeRecord(offset: number, bit: number): number {
    const db = this.db;
    if (this.recordSize === 28) {
      return bit === 0
        ? ((db[offset + 3]! & 0xf0) << 20) | (db[offset]! << 16) | (db[offset + 1]! << 8) | db[offset + 2]!
        : ((db[offset + 3]! & 0x0f) << 24) | (db[offset + 4]! << 16) | (db[offset + 5]! << 8) | db[offset + 6]!;
    }
    if (this.recordSize === 24) {
      const at = offset + bit * 3;
      return (db[at]! << 16) | (db[at + 1]! << 8) | db[at + 2]!;
    }
    return db.readUInt32BE(offset + bit * 4);
  }
}
