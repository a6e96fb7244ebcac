/**
 * A column of values as PostgreSQL's array literal, the text pg's own `arrayString` makes of a JS
 * array, built in time slices (server/time-slice.ts). Handed an array, pg builds that text in one
 * synchronous loop when the query is sent: for a 5000-row group's 15 columns 20-100 ms, which
 * every other request on the server waited out (docs/storage.md "Group commit").
 */
import { TimeSlice } from "../../time-slice.js";

/** what a column may hold: a conversion column, a dimension's hash or JSON */
export type ArrayElement = string | number | Uint8Array | null | undefined;

export async function arrayLiteral(values: readonly ArrayElement[], slice = new TimeSlice()): Promise<string> {
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    if (slice.due()) await slice.pause();
    parts[i] = element(values[i]);
  }
  return `{${parts.join(",")}}`;
}

/** Every column of a query, one after the other in the same slices. */
export async function arrayLiterals(columns: ReadonlyArray<readonly ArrayElement[]>, slice = new TimeSlice()): Promise<string[]> {
  const out: string[] = [];
  for (const column of columns) out.push(await arrayLiteral(column, slice));
  return out;
}

function element(value: ArrayElement): string {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`Not a storable number: ${value}`);
    return String(value);
  }
  // bytea in hex form; the backslash doubled as an array literal's escape (pg writes the same)
  if (value instanceof Uint8Array) return `\\\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("hex")}`;
  return `"${value.replace(/[\\"]/g, "\\$&")}"`;
}
