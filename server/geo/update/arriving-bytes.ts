/**
 * A download or an archive member that arrives in pieces, as one Buffer. When its size is known
 * ahead (Content-Length, the tar header) each piece is copied into place as it arrives: joining
 * 30-60 MB of pieces at the end faulted in all the fresh pages at once and held requests back
 * 20-40 ms (docs/performance.md, "2026-11-29, evening"). A size that turns out wrong falls back to
 * joining the pieces; the callers check the total.
 */
export class ArrivingBytes {
  private whole: Buffer | null;
  private readonly pieces: Buffer[] = [];
  private received = 0;

  constructor(expected: number | null) {
    this.whole = expected === null ? null : Buffer.allocUnsafe(expected);
  }

  get length(): number {
    return this.received;
  }

  push(piece: Uint8Array): void {
    if (this.whole && this.received + piece.byteLength <= this.whole.length) {
      this.whole.set(piece, this.received);
    } else {
      if (this.whole) {
        this.pieces.push(this.whole.subarray(0, this.received));
        this.whole = null;
      }
      this.pieces.push(Buffer.from(piece));
    }
    this.received += piece.byteLength;
  }

  bytes(): Buffer {
    return this.whole ? this.whole.subarray(0, this.received) : Buffer.concat(this.pieces, this.received);
  }
}
