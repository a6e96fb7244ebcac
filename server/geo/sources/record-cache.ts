import type { Located } from "./located.js";

/**
 * Decoded records by data offset (mmdb-lib's decoder cache), and what each converts to, for at
 * most `max` records: a record serves whole networks, so random addresses hit it again and again
 * (about 85% hits at 20,000 on random IPv4). When full it starts afresh, which costs less per
 * lookup than LRU bookkeeping or a WeakMap. The converted object is the same for every address of
 * the record, which is what the part tokens (part-tokens.ts) key on.
 */
export class RecordCache<R extends object> {
  private records = new Map<string | number, object>();
  private converted = new Map<object, Located>();
  constructor(
    private readonly max: number,
    private readonly convert: (record: R) => Located,
  ) {}
  get(offset: string | number): object | undefined {
    return this.records.get(offset);
  }
  set(offset: string | number, record: object): void {
    if (this.records.size >= this.max) {
      this.records = new Map();
      this.converted = new Map();
    }
    this.records.set(offset, record);
  }
  located(record: R): Located {
    let located = this.converted.get(record);
    if (!located) {
      located = this.convert(record);
      this.converted.set(record, located);
    }
    return located;
  }
}
