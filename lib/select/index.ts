/**
 * The `select` parameter (docs/api.md#select): parse the comma-separated (and possibly repeated)
 * values, then cut an Ip object down to the chosen leaves. Browser-safe.
 */
import { IP_OBJECT_PATHS, type IpObjectPath } from "../schemas/ip-object.js";

const ORDER = new Map<string, number>(IP_OBJECT_PATHS.map((path, index) => [path, index]));

export type SelectParse =
  | { ok: true; paths: IpObjectPath[] | null }
  | { ok: false; invalidFields: string[] };

/** `paths: null` means "no select": keep everything. Empty items are ignored; the result is in spec order. */
export function parseSelect(values: readonly string[] | undefined): SelectParse {
  const items = (values ?? []).flatMap((value) => value.split(",")).map((item) => item.trim()).filter(Boolean);
  if (items.length === 0) return { ok: true, paths: null };
  const invalidFields = [...new Set(items.filter((item) => !ORDER.has(item)))];
  if (invalidFields.length > 0) return { ok: false, invalidFields };
  const paths = [...new Set(items)] as IpObjectPath[];
  paths.sort((a, b) => ORDER.get(a)! - ORDER.get(b)!);
  return { ok: true, paths };
}

type Tree = Record<string, unknown>;

/**
 * Keeps only the selected leaves at their nested positions. A path below a parent that is null
 * leaves that parent null (there is nothing below it to keep).
 */
export function applySelect<T extends object>(data: T, paths: readonly IpObjectPath[] | null): T | Tree {
  if (paths === null) return data;
  const out: Tree = {};
  for (const path of paths) {
    const segments = path.split(".");
    let source: unknown = data;
    let target = out;
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i]!;
      const value = (source as Tree)[segment];
      if (i === segments.length - 1) {
        target[segment] = value ?? null;
        break;
      }
      if (value === null || value === undefined) {
        target[segment] = null;
        break;
      }
      if (target[segment] === undefined) target[segment] = {};
      target = target[segment] as Tree;
      source = value;
    }
  }
  return out;
}
