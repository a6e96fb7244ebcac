/**
 * Conversion ids: UUID version 7 (RFC 9562), from `uuid`'s v7 and its monotonic clock, made a
 * request's worth at a time. `v7()` returning a string allocates most of a kilobyte per id (a copy
 * of random bytes, a byte array, twenty joined pieces) that a bulk's scavenges then copy while its
 * items are alive; a GET's one id made that way is three times the garbage of this one. Here v7
 * writes the bytes of all into one buffer, the buffer is written out as text once, and each id is
 * a slice of that text; a single id is written in buffers kept for it.
 */
import { v7 } from "uuid";

const UUID_BYTES = 16;
const UUID_CHARS = 36;
/** each byte's two lower-case hex digits, as character codes */
const HEX = new Uint8Array(512);
for (let byte = 0; byte < 256; byte++) {
  const digits = byte.toString(16).padStart(2, "0");
  HEX[byte * 2] = digits.charCodeAt(0);
  HEX[byte * 2 + 1] = digits.charCodeAt(1);
}
const DASH = 0x2d;

/** one id's bytes and text (a GET's): written again for each, so that only its string is new */
const ONE_BYTES = Buffer.allocUnsafe(UUID_BYTES);
const ONE_TEXT = Buffer.allocUnsafe(UUID_CHARS);

/** `count` new ids, in increasing order (time-ordered: they land at the end of the unique-id index) */
export function conversionIds(count: number): string[] {
  const bytes = count === 1 ? ONE_BYTES : Buffer.allocUnsafe(UUID_BYTES * count);
  const text = count === 1 ? ONE_TEXT : Buffer.allocUnsafe(UUID_CHARS * count);
  for (let i = 0; i < count; i++) v7(undefined, bytes, i * UUID_BYTES);
  let at = 0;
  for (let i = 0; i < bytes.length; i++) {
    // 8-4-4-4-12 hex digits: a dash before bytes 4, 6, 8 and 10 of each id
    const inId = i & 15;
    if (inId === 4 || inId === 6 || inId === 8 || inId === 10) text[at++] = DASH;
    const byte = bytes[i]!;
    text[at++] = HEX[byte * 2]!;
    text[at++] = HEX[byte * 2 + 1]!;
  }
  const all = text.toString("latin1");
  if (count === 1) return [all];
  const ids = new Array<string>(count);
  for (let i = 0; i < count; i++) ids[i] = all.slice(i * UUID_CHARS, (i + 1) * UUID_CHARS);
  return ids;
}
