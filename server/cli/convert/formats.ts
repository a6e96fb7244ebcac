/**
 * How `ipatlas lookup` and `ipatlas convert` print Ip objects: CSV (one column per selected leaf,
 * named by its select path), NDJSON (one object per line), JSON (one array) or text (a line a
 * person reads). Each is written record by record, so output never has to fit in memory.
 */
import type { IpObject, IpObjectPath } from "../../../lib/schemas/ip-object.js";
import { IP_OBJECT_PATHS } from "../../../lib/schemas/ip-object.js";
import { applySelect } from "../../../lib/select/index.js";

export const FORMATS = ["csv", "ndjson", "json", "text"] as const;
export type Format = (typeof FORMATS)[number];

export interface RecordFormat {
  start: string;
  /** `index` counts from 0 (JSON puts a comma before every record but the first) */
  record(data: IpObject, index: number): string;
  end(count: number): string;
}

function leaf(data: IpObject, path: string): unknown {
  let value: unknown = data;
  for (const segment of path.split(".")) {
    if (value === null || value === undefined) return null;
    value = (value as Record<string, unknown>)[segment];
  }
  return value ?? null;
}

/** RFC 4180: quoted when it holds a comma, quote, line break or edge space; quotes doubled. */
function csvField(value: unknown): string {
  if (value === null) return "";
  const text = String(value);
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function textLine(data: IpObject): string {
  const country = data.continent?.country;
  const place = [country?.city?.name, country?.subdivision?.name, country?.name].filter(Boolean).join(", ");
  const asn = data.asn?.number ? `AS${data.asn.number}${data.asn.name ? ` ${data.asn.name}` : ""}` : "";
  const where = data.type === null ? "not an IP address" : place ? `${country?.code ?? "--"}  ${place}` : "no location known";
  return [data.ip, where, asn].filter(Boolean).join("  ") + "\n";
}

/** `paths` null = every leaf (CSV) or the whole object (JSON). */
export function recordFormat(format: Format, paths: readonly IpObjectPath[] | null): RecordFormat {
  switch (format) {
    case "csv": {
      const columns = paths ?? IP_OBJECT_PATHS;
      return {
        start: columns.join(",") + "\n",
        record: (data) => columns.map((path) => csvField(leaf(data, path))).join(",") + "\n",
        end: () => "",
      };
    }
    case "ndjson":
      return { start: "", record: (data) => JSON.stringify(applySelect(data, paths)) + "\n", end: () => "" };
    case "json":
      return {
        start: "[",
        record: (data, index) => (index === 0 ? "\n" : ",\n") + JSON.stringify(applySelect(data, paths)),
        end: (count) => (count === 0 ? "]\n" : "\n]\n"),
      };
    case "text":
      return { start: "", record: textLine, end: () => "" };
  }
}
