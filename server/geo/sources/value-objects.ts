/**
 * One object per value, found by a text key made of the value. Part tokens
 * (../engine/part-tokens.ts) follow objects, so a source whose records are decoded again (a
 * MaxMind-format file's, once its cache starts afresh, or at every lookup without one) must hand
 * out the same object for an equal value: a new one would give the conversion a network part of
 * its own, whose text is then made and hashed again. Starts afresh when full, like the record
 * caches.
 */
export class ValueObjects<V> {
  private objects = new Map<string, V>();

  constructor(private readonly max: number) {}

  /**
   * the object kept for `key`, or the one `make` makes, kept from now on; with `matches`, a key
   * that is only part of the value (cheaper to make) and a check of the rest
   */
  of(key: string, make: () => V, matches?: (kept: V) => boolean): V {
    let object = this.objects.get(key);
    if (object === undefined || (matches && !matches(object))) {
      if (this.objects.size >= this.max) this.objects = new Map();
      this.objects.set(key, (object = make()));
    }
    return object;
  }
}
