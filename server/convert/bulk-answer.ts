/**
 * The `data` of a bulk answer (`[{ip, conversion, conversionId}, …]`) as UTF-8 bytes in 64 KiB
 * chunks (../json-bytes.ts): a 5000-address answer is megabytes, and as one string (plus the array
 * of item strings it was joined from, and its UTF-8 copy for the socket) it would sit in the JS
 * heap's large-object space until a full GC. The Ip objects are written from the engine's cached
 * part texts (ip-object-json.ts). Encoding yields every few milliseconds, and runs while the bulk's
 * rows are written (convert-and-store.ts), not after the commit.
 */
import type { ConvertedItem } from "./convert-and-store.js";
import type { GeoEngine } from "../geo/types.js";
import { JsonBytes } from "../json-bytes.js";
import { TimeSlice } from "../time-slice.js";

export async function encodeBulkData(items: readonly ConvertedItem[], engine: Pick<GeoEngine, "writeJson">): Promise<Buffer[]> {
  const out = new JsonBytes();
  const slice = new TimeSlice();
  await slice.begin(items.length);
  out.ascii("[");
  for (let i = 0; i < items.length; i++) {
    if (slice.due()) await slice.pause();
    const item = items[i]!;
    out.ascii(i > 0 ? ',{"ip":' : '{"ip":');
    out.string(item.input);
    out.ascii(',"conversion":');
    if (item.status === "success") engine.writeJson(item.result, out);
    else out.ascii("null");
    out.ascii(',"conversionId":');
    out.string(item.uniqueId);
    out.ascii("}");
  }
  out.ascii("]");
  return out.chunks();
}
