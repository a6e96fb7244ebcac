import type { Located } from "./located.js";
import type { MmdbValueCache } from "./mmdb-decoder.js";

type PartTokenSet = NonNullable<Located["partTokens"]>;

/**
 * Decoded records by offset (the decoder's cache, mmdb-decoder.ts), and what each converts to (a city
 * record's Located, an ASN record's Asn), for at most `max` records: a record serves whole
 * networks, so random addresses hit it again and again (about 85% hits at 20,000 city records on
 * random IPv4). When full it starts afresh, which costs less per lookup than LRU bookkeeping or a
 * WeakMap. The converted object is the same for every address of the record, which is what the
 * part tokens (part-tokens.ts) key on.
 *
 * With `kept` (Located values), a record decoded again after the cache started afresh gets its
 * part tokens back (KeptPartTokens), with the texts and digests made for them.
 */
export class RecordCache<R extends object, V extends object = Located> implements MmdbValueCache {
  /** by offset in the file */
  private records = new Map<number, unknown>();

  constructor(
    private readonly max: number,
    private readonly convert: (record: R) => V,
    /** where this file's records keep their part tokens; `file` tells it from the source's others */
    private readonly kept?: { tokens: KeptPartTokens; file: number },
  ) {}

  get(offset: number): unknown {
    return this.records.get(offset);
  }

  set(offset: number, value: unknown): void {
    if (this.records.size >= this.max) this.records = new Map();
    this.records.set(offset, value);
    // the decoder caches what pointers lead to as well: strings, numbers, nested maps
    if (this.kept && typeof value === "object" && value !== null) (value as Tagged)[OFFSET] = offset;
  }

  /** what the record converts to, converted once while the cache holds the record */
  of(record: R): V {
    const tagged = record as Tagged<V>;
    let converted = tagged[CONVERTED];
    if (!converted) {
      converted = this.convert(record);
      const offset = tagged[OFFSET];
      if (this.kept && offset !== undefined) (converted as Located).partTokens = this.kept.tokens.of(this.kept.file, offset);
      tagged[CONVERTED] = converted;
    }
    return converted;
  }
}

/**
 * What a cached record converts to, and its offset, are kept on the decoded record itself, which
 * lives as long as the cache holds it: maps keyed by the records cost a decode two insertions and
 * every lookup a search by object (~15% of converting fresh random addresses).
 */
const CONVERTED = Symbol("converted");
const OFFSET = Symbol("offset");
type Tagged<V = unknown> = { [CONVERTED]?: V; [OFFSET]?: number };

/**
 * The part tokens of a source's records, with their texts and digests, by file and offset, for at
 * most `max` records, decoded or not: kept apart from the record caches, which start afresh on
 * their own. A record decoded again after its cache started afresh then finds its texts made,
 * instead of making them again: under random addresses a third of a bulk's row encoding went on
 * that (docs/performance.md "2026-11-29, before dawn"). The record at an offset of one loaded file
 * is always the same, so its tokens are too. Starts afresh when full, like the caches.
 */
export class KeptPartTokens {
  private tokens = new Map<number, PartTokenSet>();
  constructor(private readonly max: number) {}

  /** the part tokens of the record at `offset` of the source's file number `file` (0 or 1) */
  of(file: number, offset: number): PartTokenSet {
    const key = offset * 2 + file;
    let tokens = this.tokens.get(key);
    if (!tokens) {
      if (this.tokens.size >= this.max) this.tokens = new Map();
      this.tokens.set(key, (tokens = new Map()));
    }
    return tokens;
  }
}
