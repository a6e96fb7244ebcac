/**
 * A conversion id's 16 bytes from its text: how SQLite stores it (a BLOB) and how a bulk's rows go
 * to PostgreSQL as binary COPY data (postgres/copy-rows.ts); and its text from its bytes: a new id
 * (convert/conversion-ids.ts) and one read back from SQLite.
 */

export const UUID_BYTES = 16;
/** the 8-4-4-4-12 form's length */
export const UUID_CHARS = 36;

/** each hex digit's value by its character code, either case; -1 for any other ASCII character */
const HEX_VALUE = new Int8Array(128).fill(-1);
for (let digit = 0; digit < 16; digit++) {
  HEX_VALUE["0123456789abcdef".charCodeAt(digit)] = digit;
  HEX_VALUE["0123456789ABCDEF".charCodeAt(digit)] = digit;
}
const DASH = 0x2d;
/** where the dashes of the 8-4-4-4-12 form are */
const DASHES_AT = [8, 13, 18, 23];
/** where each byte's two digits start in that form, and in the 32 digits without dashes: worked out once, not per id */
const DASHED_BYTE_AT = new Uint8Array(UUID_BYTES);
const PLAIN_BYTE_AT = new Uint8Array(UUID_BYTES);
for (let byte = 0, from = 0; byte < UUID_BYTES; byte++, from += 2) {
  if (DASHES_AT.includes(from)) from++;
  DASHED_BYTE_AT[byte] = from;
  PLAIN_BYTE_AT[byte] = byte * 2;
}

/** each byte's two lower-case hex digits, as character codes */
const HEX_DIGITS = new Uint8Array(512);
for (let byte = 0; byte < 256; byte++) {
  const digits = byte.toString(16).padStart(2, "0");
  HEX_DIGITS[byte * 2] = digits.charCodeAt(0);
  HEX_DIGITS[byte * 2 + 1] = digits.charCodeAt(1);
}

/** Writes the 8-4-4-4-12 text of the UUID whose bytes are at `from` in `bytes`, as UUID_CHARS ASCII bytes at `at`. */
export function writeUuidText(bytes: Uint8Array, from: number, out: Uint8Array, at: number): void {
  for (let byte = 0; byte < UUID_BYTES; byte++) {
    const digits = bytes[from + byte]! * 2;
    const to = at + DASHED_BYTE_AT[byte]!;
    out[to] = HEX_DIGITS[digits]!;
    out[to + 1] = HEX_DIGITS[digits + 1]!;
  }
  for (const dash of DASHES_AT) out[at + dash] = DASH;
}

/** one id's text, written again for each: only its string is new */
const ONE_TEXT = Buffer.allocUnsafe(UUID_CHARS);

/** the 8-4-4-4-12 text of the UUID whose bytes are at `from` in `bytes` */
export function uuidText(bytes: Uint8Array, from = 0): string {
  writeUuidText(bytes, from, ONE_TEXT, 0);
  return ONE_TEXT.toString("latin1");
}

/**
 * Writes a UUID's 16 bytes at `at`, from its text with or without dashes; false when the text is
 * not a UUID (what was written is then meaningless). A digit at a time: `Buffer.from(hex)` after a
 * dash-stripping replace took ~0.7 µs an id, ~4.5 ms of the SQLite writer thread's time for a
 * 5000-row bulk.
 */
export function writeUuidBytes(uuid: string, out: Uint8Array, at: number): boolean {
  const dashed = uuid.length === 36;
  if (!dashed && uuid.length !== 32) return false;
  if (dashed) for (const dash of DASHES_AT) if (uuid.charCodeAt(dash) !== DASH) return false;
  const byteAt = dashed ? DASHED_BYTE_AT : PLAIN_BYTE_AT;
  // -1 for a character that is no hex digit (the table has none past ASCII): `digits` goes negative
  let digits = 0;
  for (let byte = 0; byte < UUID_BYTES; byte++) {
    const from = byteAt[byte]!;
    const high = HEX_VALUE[uuid.charCodeAt(from)] ?? -1;
    const low = HEX_VALUE[uuid.charCodeAt(from + 1)] ?? -1;
    digits |= high | low;
    out[at + byte] = (high << 4) | low;
  }
  return digits >= 0;
}
