/**
 * The `data` of a bulk answer (`[{ip, conversion, conversionId}, …]`) as UTF-8 bytes in 64 KiB
 * chunks, written item by item into buffers: a 5000-address answer is megabytes, and as one
 * string (plus the array of item strings it was joined from, and its UTF-8 copy for the socket) it
 * would sit in the JS heap's large-object space until a full GC. The Ip objects come from the
 * engine's cached fragments (ip-object-json.ts). Encoding yields every few milliseconds, and runs
 * while the bulk's rows are written (convert-and-store.ts), not after the commit.
 */
import type { ConvertedItem } from "./convert-and-store.js";
import { TimeSlice } from "../time-slice.js";

const CHUNK_BYTES = 64 * 1024;
/** UTF-8 needs at most 3 bytes per UTF-16 code unit */
const MAX_BYTES_PER_UNIT = 3;

export async function encodeBulkData(items: readonly ConvertedItem[], toJson: (item: ConvertedItem) => string): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  let chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let at = 0;
  const put = (text: string) => {
    if (at + text.length * MAX_BYTES_PER_UNIT > CHUNK_BYTES) {
      if (at > 0) chunks.push(chunk.subarray(0, at));
      chunk = Buffer.allocUnsafe(CHUNK_BYTES);
      at = 0;
      // an item larger than a chunk (a long invalid input echoed back) is a chunk of its own
      if (text.length * MAX_BYTES_PER_UNIT > CHUNK_BYTES) return void chunks.push(Buffer.from(text, "utf8"));
    }
    at += chunk.write(text, at, "utf8");
  };
  const slice = new TimeSlice();
  await slice.begin(items.length);
  put("[");
  for (let i = 0; i < items.length; i++) {
    if (slice.due()) await slice.pause();
    const item = items[i]!;
    put(
      `${i > 0 ? "," : ""}{"ip":${JSON.stringify(item.input)},"conversion":${item.status === "success" ? toJson(item) : "null"},"conversionId":"${item.conversionId}"}`,
    );
  }
  put("]");
  if (at > 0) chunks.push(chunk.subarray(0, at));
  return chunks;
}
