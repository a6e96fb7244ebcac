/**
 * Whole files read into memory on libuv's thread pool, in pieces all asked for at once, so that
 * the pool's threads read several at a time (and fault in the fresh memory they land in). On the
 * virtual machines this project is measured on, memory touched for the first time costs 5-15 µs a
 * page: the bundled city files (134 MB) took 490-540 ms read one after the other with
 * `readFileSync`, 280-320 ms like this (docs/performance.md "2026-11-29, late evening"). For a
 * start, not for a reload while serving: there the threads faulting in pages at once took the
 * cores from the requests (gaps of 22-59 ms against 7-19 with `fs/promises` `readFile`,
 * watched-mmdb.ts).
 */
import { open } from "node:fs/promises";

/** what one read asks for: 8 MiB, so that a 60 MB file is eight reads the pool's four threads share */
const PIECE_BYTES = 8 << 20;

export async function readWholeFiles(paths: readonly string[], pieceBytes = PIECE_BYTES): Promise<Buffer[]> {
  return Promise.all(paths.map((path) => readWholeFile(path, pieceBytes)));
}

async function readWholeFile(path: string, pieceBytes: number): Promise<Buffer> {
  const file = await open(path, "r");
  try {
    // the size of the file this handle reads, even if another one is renamed over it meanwhile
    const { size } = await file.stat();
    const bytes = Buffer.allocUnsafe(size);
    const pieces: Array<Promise<void>> = [];
    for (let at = 0; at < size; at += pieceBytes) {
      const end = Math.min(at + pieceBytes, size);
      pieces.push(
        (async () => {
          // a read may return less than it was asked for
          for (let done = at; done < end; ) {
            const { bytesRead } = await file.read(bytes, done, end - done, done);
            if (bytesRead === 0) throw new Error(`${path} ended at ${done} bytes; it had ${size} when opened`);
            done += bytesRead;
          }
        })(),
      );
    }
    await Promise.all(pieces);
    return bytes;
  } finally {
    await file.close();
  }
}
