/**
 * The part of `browser.storage.local` the extension's modules use. Passing it in keeps the
 * modules plain (no global `browser`), so the unit tests run them on an in-memory area.
 */
export interface StorageAreaLike {
  get(keys: string | string[] | null): Promise<Record<string, unknown>>;
  set(items: Record<string, unknown>): Promise<void>;
  remove(keys: string | string[]): Promise<void>;
}

/** A StorageAreaLike in memory: the tests' stand-in for the browser's storage, with the same copy semantics. */
export function memoryStorageArea(): StorageAreaLike & { data: Map<string, unknown> } {
  const data = new Map<string, unknown>();
  const copy = <T>(value: T): T => (value === undefined ? value : JSON.parse(JSON.stringify(value)));
  return {
    data,
    async get(keys) {
      const list = keys === null ? [...data.keys()] : typeof keys === "string" ? [keys] : keys;
      const out: Record<string, unknown> = {};
      for (const key of list) if (data.has(key)) out[key] = copy(data.get(key));
      return out;
    },
    async set(items) {
      for (const [key, value] of Object.entries(items)) data.set(key, copy(value));
    },
    async remove(keys) {
      for (const key of typeof keys === "string" ? [keys] : keys) data.delete(key);
    },
  };
}
