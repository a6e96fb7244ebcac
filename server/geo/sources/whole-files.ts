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
import { closeSync, fstatSync, openSync, readFileSync, readSync, type Stats } from "node:fs";
import { open } from "node:fs/promises";
import { isMainThread, workerData } from "node:worker_threads";

/** what one read asks for: 8 MiB, so that a 60 MB file is eight reads the pool's four threads share */
const PIECE_BYTES = 8 << 20;

/**
 * Under `serve --threads N` the server threads share the files read here: one copy of the city
 * data (~150 MB) for all of them. A server thread reads into SharedArrayBuffers; the group hands
 * those its first server read to the threads it starts after it (their workerData's
 * `sharedFiles`, server-group.ts), and a thread takes a file from there when it is the same file
 * on disk (device, inode, size, modification time). What a thread holds here is let go once it
 * is ready (`handOn`), so that a file replaced later is not kept alive by this list. Elsewhere
 * (one server, a cluster worker, the CLI) nothing is shared and reads are plain.
 */
export class SharedFiles {
  private files: Map<string, SharedArrayBuffer>;

  /** `offered`: null where nothing is shared; a server thread's list, empty for the first */
  constructor(offered: Array<[string, SharedArrayBuffer]> | null) {
    this.sharing = offered !== null;
    this.files = new Map(offered ?? []);
  }

  readonly sharing: boolean;

  /** the buffer a file of `size` bytes is read into */
  allocate(size: number): Buffer {
    return this.sharing ? Buffer.from(new SharedArrayBuffer(size)) : Buffer.allocUnsafe(size);
  }

  take(path: string, stat: Stats): Buffer | undefined {
    const shared = this.files.get(identity(path, stat));
    return shared && Buffer.from(shared);
  }

  keep(path: string, stat: Stats, bytes: Buffer): void {
    if (this.sharing && bytes.buffer instanceof SharedArrayBuffer) this.files.set(identity(path, stat), bytes.buffer);
  }

  /** what this thread read or took, to hand on to the group; forgotten here */
  handOn(): Array<[string, SharedArrayBuffer]> {
    const held = [...this.files];
    this.files = new Map();
    return held;
  }
}

function identity(path: string, stat: Stats): string {
  return `${path}\0${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}`;
}

function offeredToThisThread(): Array<[string, SharedArrayBuffer]> | null {
  const data = isMainThread ? null : (workerData as { sharedFiles?: Array<[string, SharedArrayBuffer]> } | null);
  if (!Array.isArray(data?.sharedFiles)) return null;
  const offered = data.sharedFiles;
  // workerData lives as long as the thread: the list is moved out of it, not copied
  data.sharedFiles = [];
  return offered;
}

/** this thread's share: sharing only in a server thread of `serve --threads` */
export const threadFiles = new SharedFiles(offeredToThisThread());

export async function readWholeFiles(paths: readonly string[], pieceBytes = PIECE_BYTES, files = threadFiles): Promise<Buffer[]> {
  return Promise.all(paths.map((path) => readWholeFile(path, pieceBytes, files)));
}

/** One file read whole at once, for a file that is loaded and checked before anything is served. */
export function readWholeFileSync(path: string, files = threadFiles): Buffer {
  if (!files.sharing) return readFileSync(path);
  const fd = openSync(path, "r");
  try {
    const stat = fstatSync(fd);
    const taken = files.take(path, stat);
    if (taken) return taken;
    const bytes = files.allocate(stat.size);
    for (let done = 0; done < stat.size; ) {
      const bytesRead = readSync(fd, bytes, done, stat.size - done, done);
      if (bytesRead === 0) throw new Error(`${path} ended at ${done} bytes; it had ${stat.size} when opened`);
      done += bytesRead;
    }
    files.keep(path, stat, bytes);
    return bytes;
  } finally {
    closeSync(fd);
  }
}

async function readWholeFile(path: string, pieceBytes: number, files: SharedFiles): Promise<Buffer> {
  const file = await open(path, "r");
  try {
    // the size of the file this handle reads, even if another one is renamed over it meanwhile
    const stat = await file.stat();
    const taken = files.take(path, stat);
    if (taken) return taken;
    const { size } = stat;
    const bytes = files.allocate(size);
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
    files.keep(path, stat, bytes);
    return bytes;
  } finally {
    await file.close();
  }
}
