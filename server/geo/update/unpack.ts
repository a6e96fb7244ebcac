/**
 * The .mmdb inside a download: gunzip (DB-IP), or the one .mmdb member of a tar.gz (MaxMind, read
 * with node-tar's parser, which also gunzips). Both stop at `maxBytes` of output, so a small
 * download cannot unpack into an unbounded file.
 */
import { gunzip } from "node:zlib";
import { promisify } from "node:util";
import { createHash } from "node:crypto";
import { Parser, type ReadEntry } from "tar";
import { TimeSlice } from "../../time-slice.js";
import { ArrivingBytes } from "./arriving-bytes.js";

const gunzipAsync = promisify(gunzip);

export class UnpackError extends Error {}

export async function gunzipMmdb(body: Buffer, maxBytes: number): Promise<Buffer> {
  if (body[0] !== 0x1f || body[1] !== 0x8b) throw new UnpackError("not a gzip file");
  try {
    return await gunzipAsync(body, { maxOutputLength: maxBytes });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ERR_BUFFER_TOO_LARGE") throw new UnpackError(`unpacks to more than ${maxBytes} bytes`);
    throw new UnpackError(`corrupt gzip: ${(error as Error).message}`);
  }
}

export async function untarMmdb(body: Buffer, maxBytes: number): Promise<Buffer> {
  if (body[0] !== 0x1f || body[1] !== 0x8b) throw new UnpackError("not a gzip file");
  return new Promise<Buffer>((resolve, reject) => {
    const found: Buffer[] = [];
    let names: string[] = [];
    let failure: Error | null = null;
    const parser = new Parser({
      strict: true,
      onReadEntry(entry: ReadEntry) {
        if (entry.type !== "File" || !entry.path.endsWith(".mmdb")) {
          entry.resume();
          return;
        }
        names.push(entry.path);
        if (entry.size > maxBytes) {
          failure ??= new UnpackError(`${entry.path} is ${entry.size} bytes, over the limit of ${maxBytes}`);
          entry.resume();
          return;
        }
        const member = new ArrivingBytes(entry.size);
        entry.on("data", (chunk: Buffer) => member.push(chunk));
        entry.on("end", () => found.push(member.bytes()));
      },
    });
    // a broken gzip stream aborts the parser: it errors and never ends
    parser.on("error", (error: Error) => reject(new UnpackError(`corrupt tar.gz: ${error.message}`)));
    parser.on("warn", (_code: string, message: string | Error) => (failure ??= new UnpackError(`corrupt tar.gz: ${String(message)}`)));
    parser.on("end", () => {
      if (failure) return reject(failure);
      if (found.length !== 1) return reject(new UnpackError(found.length === 0 ? "no .mmdb file in the archive" : `more than one .mmdb file in the archive: ${names.join(", ")}`));
      resolve(found[0]!);
    });
    // node-tar gunzips and parses what it is given before it returns: the download is fed a chunk
    // at a time, each in its own turn of the event loop, not 30 MB at once
    let aborted = false;
    parser.once("error", () => (aborted = true));
    void (async () => {
      const slice = new TimeSlice();
      for (let at = 0; at < body.length && !aborted; at += TAR_CHUNK_BYTES) {
        parser.write(body.subarray(at, at + TAR_CHUNK_BYTES));
        await slice.pause();
      }
      if (!aborted) parser.end();
    })().catch((error: Error) => reject(new UnpackError(`corrupt tar.gz: ${error.message}`)));
  });
}

/** bytes hashed in one call; the slice looks at the clock every 32 calls, 1 MiB (~2 ms) */
const HASH_CHUNK_BYTES = 1 << 15;
/** compressed bytes fed to the tar parser in one turn of the event loop (~2 ms unpacked and parsed) */
const TAR_CHUNK_BYTES = 1 << 18;

/** The body's SHA-256, a chunk at a time in slices (../../time-slice.ts): a 30 MB download is ~60 ms of hashing. */
export async function sha256(body: Buffer): Promise<string> {
  const hash = createHash("sha256");
  const slice = new TimeSlice();
  for (let at = 0; at < body.length; at += HASH_CHUNK_BYTES) {
    hash.update(body.subarray(at, at + HASH_CHUNK_BYTES));
    if (slice.due()) await slice.pause();
  }
  return hash.digest("hex");
}
