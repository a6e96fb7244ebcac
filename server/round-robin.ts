/**
 * Items waiting per key, served round-robin between keys: the key first in turn gives its oldest
 * item, then goes to the back. One key's flood then waits behind one item of every other key, not
 * the other way round. Bulk admission (middleware/bulk-admission.ts) and the lists' turns
 * (storage/list-turns.ts) queue this way, by project.
 */
export class RoundRobin<K, T> {
  /** each key's items in arrival order; the Map's order is the keys' turns */
  private readonly byKey = new Map<K, T[]>();
  private count = 0;

  /** items waiting, over all keys */
  get size(): number {
    return this.count;
  }

  /** items waiting for `key` */
  countOf(key: K): number {
    return this.byKey.get(key)?.length ?? 0;
  }

  push(key: K, item: T): void {
    const items = this.byKey.get(key);
    if (items) items.push(item);
    else this.byKey.set(key, [item]);
    this.count++;
  }

  /** the item whose turn it is, left in place */
  peek(): T | undefined {
    const first = this.byKey.values().next();
    return first.done ? undefined : first.value[0];
  }

  /** takes the item whose turn it is; its key goes to the back of the turns */
  shift(): T | undefined {
    const first = this.byKey.entries().next();
    if (first.done) return undefined;
    const [key, items] = first.value;
    this.byKey.delete(key);
    const item = items.shift()!;
    if (items.length) this.byKey.set(key, items);
    this.count--;
    return item;
  }

  /** takes `item` out wherever it waits (one that gave up); false when it is not waiting */
  remove(key: K, item: T): boolean {
    const items = this.byKey.get(key);
    const at = items?.indexOf(item) ?? -1;
    if (at < 0) return false;
    items!.splice(at, 1);
    if (!items!.length) this.byKey.delete(key);
    this.count--;
    return true;
  }
}
