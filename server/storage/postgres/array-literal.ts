/**
 * A column of values as PostgreSQL's array literal, the text pg's own `arrayString` makes of a JS
 * array, built in time slices (server/time-slice.ts). Handed an array, pg builds that text in one
 * synchronous loop when the query is sent: for a 5000-row group's 15 columns 20-100 ms, which
 * every other request on the server waited out (docs/storage.md "Group commit").
 *
 * A column goes in blocks, each made by one native call where its elements allow: numbers by
 * `join`, strings by `JSON.stringify`, whose quoting of `"` and `\` is the array literal's own.
 * Element by element in JavaScript, a random 5000-address bulk's parameters took ~27 ms of the
 * event loop (docs/storage.md "Group commit"). Any other block (nulls, bytes, a string JSON would
 * escape otherwise) still goes element by element.
 */
import { TimeSlice } from "../../time-slice.js";

/** what a column may hold: a conversion column's value, or a part's hash as its hex (Dimension.key) */
export type ArrayElement = string | number | Uint8Array | null | undefined;

/** elements made between two looks at the clock */
const BLOCK = 500;
/** an escape JSON makes that an array literal would read otherwise (`\n`, `\u0001`…); `\"` and `\\` mean the same in both */
const OTHER_ESCAPE = /\\[^"\\]/;

export async function arrayLiteral(values: readonly ArrayElement[], slice = new TimeSlice()): Promise<string> {
  const blocks: string[] = [];
  for (let from = 0; from < values.length; from += BLOCK) {
    if (slice.due()) await slice.pause();
    blocks.push(blockText(values.slice(from, from + BLOCK)));
  }
  return `{${blocks.join(",")}}`;
}

/** Every column of a query, one after the other in the same slices. */
export async function arrayLiterals(columns: ReadonlyArray<readonly ArrayElement[]>, slice = new TimeSlice()): Promise<string[]> {
  const out: string[] = [];
  for (const column of columns) out.push(await arrayLiteral(column, slice));
  return out;
}

/** the elements of a block, comma-separated */
function blockText(block: readonly ArrayElement[]): string {
  let numbers = 0;
  let strings = 0;
  for (const value of block) {
    if (typeof value === "number") {
      if (!Number.isFinite(value)) throw new Error(`Not a storable number: ${value}`);
      numbers++;
    } else if (typeof value === "string") strings++;
  }
  // String(n) for each, as element() writes them
  if (numbers === block.length) return block.join(",");
  if (strings === block.length) {
    const json = JSON.stringify(block);
    if (!OTHER_ESCAPE.test(json)) return json.slice(1, -1);
  }
  return block.map(element).join(",");
}

function element(value: ArrayElement): string {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "number") return String(value);
  // bytea in hex form; the backslash doubled as an array literal's escape (pg writes the same)
  if (value instanceof Uint8Array) return `\\\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("hex")}`;
  return `"${value.replace(/[\\"]/g, "\\$&")}"`;
}
