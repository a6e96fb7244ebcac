/**
 * An .mmdb file's build date read from its end, where the format keeps its metadata (MaxMind DB
 * 2.0, "Database Metadata": a map after the marker, within the file's last 128 KiB), so the
 * updater learns the date of the file in place without reading all of a 60-130 MB file into
 * memory at every check. The map's other values are passed over by MmdbDataScanner, which checks
 * each one: a damaged end reads as no date, as a file mmdb-lib cannot open does.
 */
import { open } from "node:fs/promises";
import { MmdbDataScanner, valueHeader } from "./mmdb-data-scan.js";
import { MMDB_TYPE } from "./mmdb-format.js";

export const METADATA_MARKER = Buffer.from([0xab, 0xcd, 0xef, ...Buffer.from("MaxMind.com")]);
/** the metadata, marker included, lies within this many bytes of the file's end */
const METADATA_MAX_BYTES = 128 * 1024;

const { UTF8, MAP, UINT16, UINT32, UINT64 } = MMDB_TYPE;

/** the build date of the .mmdb file at `path`, or null when its end holds no readable metadata */
export async function mmdbBuildDate(path: string): Promise<Date | null> {
  const handle = await open(path, "r");
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, METADATA_MAX_BYTES);
    const { buffer, bytesRead } = await handle.read({ buffer: Buffer.alloc(length), position: size - length });
    return buildDateOfTail(buffer.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}

/** the build date in the metadata at the end of `tail` (the last bytes of an .mmdb file) */
export function buildDateOfTail(tail: Buffer): Date | null {
  const marker = tail.lastIndexOf(METADATA_MARKER);
  if (marker < 0) return null;
  const start = marker + METADATA_MARKER.length;
  const scanner = new MmdbDataScanner(tail, start, tail.length - start);
  try {
    const map = valueHeader(tail, start, tail.length);
    if (map.type !== MAP) return null;
    let at = map.next;
    for (let pair = 0; pair < map.size; pair++) {
      const key = valueHeader(tail, at, tail.length);
      if (key.type !== UTF8) return null;
      const name = tail.toString("utf8", key.next, key.next + key.size);
      at = key.next + key.size;
      if (name === "build_epoch") {
        const value = valueHeader(tail, at, tail.length);
        if (value.type !== UINT64 && value.type !== UINT32 && value.type !== UINT16) return null;
        // seconds since 1970 fit in 6 bytes for the next eight million years
        if (value.size > 6 || value.next + value.size > tail.length) return null;
        return new Date((value.size === 0 ? 0 : tail.readUIntBE(value.next, value.size)) * 1000);
      }
      at = start + scanner.scan(at - start);
    }
    return null;
  } catch {
    return null;
  }
}
