/**
 * JSON text written straight into UTF-8 buffers, for answers of megabytes (a bulk's): cached part
 * texts are written in as they are, short ASCII values a code unit at a time, and no string of
 * the whole answer, nor of one item, is made. A string built by `+` and then written with
 * `Buffer.write` is first flattened into a copy: for a 5000-address answer that was ~8 MB of heap
 * a request, and a fifth of the main thread's time went to GC.
 */
const CHUNK_BYTES = 64 * 1024;
/** UTF-8 needs at most 3 bytes per UTF-16 code unit */
const MAX_BYTES_PER_UNIT = 3;

export class JsonBytes {
  private readonly written: Buffer[] = [];
  private chunk: Buffer;
  private at = 0;

  constructor(private readonly chunkBytes = CHUNK_BYTES) {
    this.chunk = Buffer.allocUnsafe(chunkBytes);
  }

  /** JSON text that is ASCII only (keys, punctuation, numbers, null) */
  ascii(text: string): void {
    this.room(text.length);
    const chunk = this.chunk;
    let at = this.at;
    for (let i = 0; i < text.length; i++) chunk[at++] = text.charCodeAt(i);
    this.at = at;
  }

  /** any JSON text */
  text(text: string): void {
    this.room(text.length * MAX_BYTES_PER_UNIT);
    this.at += this.chunk.write(text, this.at, "utf8");
  }

  /** `JSON.stringify(value)`: printable ASCII without `"` or `\` as it is, anything else escaped by JSON.stringify */
  string(value: string): void {
    this.room(value.length + 2);
    const chunk = this.chunk;
    let at = this.at;
    chunk[at++] = 0x22;
    for (let i = 0; i < value.length; i++) {
      const unit = value.charCodeAt(i);
      if (unit < 0x20 || unit > 0x7e || unit === 0x22 || unit === 0x5c) return this.text(JSON.stringify(value));
      chunk[at++] = unit;
    }
    chunk[at++] = 0x22;
    this.at = at;
  }

  /** `JSON.stringify(value)` of a string or null */
  stringOrNull(value: string | null): void {
    if (value === null) this.ascii("null");
    else this.string(value);
  }

  /** what was written, in order; nothing is written after */
  chunks(): Buffer[] {
    if (this.at > 0) this.written.push(this.chunk.subarray(0, this.at));
    this.at = 0;
    this.chunk = Buffer.alloc(0);
    return this.written;
  }

  /** a new chunk when `bytes` might not fit; a value larger than a chunk gets one of its own size */
  private room(bytes: number): void {
    if (this.at + bytes <= this.chunk.length) return;
    if (this.at > 0) this.written.push(this.chunk.subarray(0, this.at));
    this.chunk = Buffer.allocUnsafe(Math.max(this.chunkBytes, bytes));
    this.at = 0;
  }
}
