/**
 * The filtered conversion list as a download, streamed chunk by chunk so a large export never
 * sits in memory: CSV (one row per conversion, the columns a spreadsheet wants) or NDJSON (the
 * stored conversion, one JSON document per line).
 */
import { conversionJson, conversionParts } from "../storage/index.js";
import type { Storage, StoredConversion } from "../storage/types.js";
import { matches, SCAN_CHUNK, type ConversionFilter } from "./conversion-views.js";

/** an export reads at most this many stored rows */
export const EXPORT_ROW_LIMIT = 1_000_000;

export const CSV_COLUMNS = ["uniqueId", "createdAt", "status", "ip", "country", "region", "city", "latitude", "longitude", "asn", "asnName"] as const;

/** RFC 4180 quoting, and a leading quote for text a spreadsheet would run as a formula */
function csvCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  let text = String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvRow(conversion: StoredConversion): string {
  const { ip, location, network } = conversionParts(conversion);
  const country = location.continent?.country;
  const values = [
    conversion.uniqueId,
    conversion.createdAt,
    conversion.status,
    ip,
    country?.code,
    country?.subdivision?.name,
    country?.city?.name,
    country?.city?.latitude,
    country?.city?.longitude,
    network.asn?.number,
    network.asn?.name,
  ];
  return values.map(csvCell).join(",") + "\r\n";
}

/** One piece of the file per stored chunk, so the download starts at once and memory stays flat. */
async function* exportPieces(storage: Storage, projectId: string, filter: ConversionFilter, format: "csv" | "ndjson"): AsyncGenerator<string> {
  if (format === "csv") yield CSV_COLUMNS.join(",") + "\r\n";
  let read = 0;
  for await (const page of storage.walkConversions(projectId, filter.ip, SCAN_CHUNK)) {
    const rows = page.slice(0, EXPORT_ROW_LIMIT - read).filter((conversion) => matches(conversion, filter));
    if (rows.length) yield rows.map((row) => (format === "csv" ? csvRow(row) : conversionJson(row) + "\n")).join("");
    read += page.length;
    if (read >= EXPORT_ROW_LIMIT) return;
  }
}

/** pulled by the client's pace: the next chunk is read from storage only when the last was sent */
export function exportStream(storage: Storage, projectId: string, filter: ConversionFilter, format: "csv" | "ndjson"): ReadableStream<Uint8Array> {
  const pieces = exportPieces(storage, projectId, filter, format);
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await pieces.next();
      if (done) controller.close();
      else controller.enqueue(encoder.encode(value));
    },
    async cancel() {
      await pieces.return(undefined);
    },
  });
}
