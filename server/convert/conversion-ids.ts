/**
 * Conversion ids: UUID version 7 (RFC 9562), laid out by `uuid`'s v7, made a request's worth at a
 * time. `v7()` returning a string allocates most of a kilobyte per id (a copy of random bytes, a
 * byte array, twenty joined pieces) that a bulk's scavenges then copy while its items are alive;
 * even writing into a buffer, its own clock draws each id's random bytes as a fresh 16-byte array
 * (~300 bytes of garbage an id). Here the random bytes of all ids are drawn at once, v7 is given
 * each id's time and counter (`msecs`, `seq`: the monotonic clock below, as v7 keeps its own) and
 * writes the bytes of all into one buffer, the buffer is written out as text once, and each id is
 * a slice of that text; a single id is written in buffers kept for it.
 */
import { randomFillSync } from "node:crypto";
import { v7 } from "uuid";
import { UUID_BYTES, UUID_CHARS, uuidText, writeUuidText } from "../storage/uuid-bytes.js";

/**
 * The time and counter of the last id made, as v7's own clock keeps them: a new millisecond starts
 * the counter at a random 31-bit value, each id within it counts up, and an overflow borrows the
 * next millisecond. So ids made one after the other increase, also within a millisecond.
 */
const clock = { msecs: -Infinity, seq: 0 };

/** what v7 is told for one id; its `random` is read only at bytes 10-15 when `seq` is given */
const options = { msecs: 0, seq: 0, random: new Uint8Array(UUID_BYTES) };

/** one id's bytes (a GET's): written again for each */
const ONE_BYTES = Buffer.allocUnsafe(UUID_BYTES);

/**
 * Random bytes drawn ahead for small requests (a GET's one id): a draw costs ~1.5 µs whatever its
 * size (the whole id takes ~0.2 µs this way), so one serves 256 such ids.
 */
const pool = Buffer.allocUnsafe(UUID_BYTES * 256);
let poolAt = pool.length;

function randomInto(bytes: Buffer): void {
  if (bytes.length > pool.length / 4) {
    randomFillSync(bytes);
    return;
  }
  if (poolAt + bytes.length > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  poolAt += pool.copy(bytes, 0, poolAt, poolAt + bytes.length);
}

/** `count` new ids, in increasing order (time-ordered: they land at the end of the unique-id index) */
export function conversionIds(count: number): string[] {
  const bytes = count === 1 ? ONE_BYTES : Buffer.allocUnsafe(UUID_BYTES * count);
  // drawn into the ids' own bytes, which v7 then writes over: bytes 6-9 of each for a new
  // millisecond's counter, 10-15 for v7's random tail
  randomInto(bytes);
  const random = options.random;
  const now = Date.now();
  for (let i = 0, at = 0; i < count; i++, at += UUID_BYTES) {
    if (now > clock.msecs) {
      clock.msecs = now;
      clock.seq = (bytes[at + 6]! << 23) | (bytes[at + 7]! << 16) | (bytes[at + 8]! << 8) | bytes[at + 9]!;
    } else {
      clock.seq = (clock.seq + 1) | 0;
      if (clock.seq === 0) clock.msecs++;
    }
    for (let j = 10; j < UUID_BYTES; j++) random[j] = bytes[at + j]!;
    options.msecs = clock.msecs;
    options.seq = clock.seq;
    v7(options, bytes, at);
  }
  if (count === 1) return [uuidText(bytes)];
  const text = Buffer.allocUnsafe(UUID_CHARS * count);
  for (let i = 0; i < count; i++) writeUuidText(bytes, i * UUID_BYTES, text, i * UUID_CHARS);
  const all = text.toString("latin1");
  const ids = new Array<string>(count);
  for (let i = 0; i < count; i++) ids[i] = all.slice(i * UUID_CHARS, (i + 1) * UUID_CHARS);
  return ids;
}
