/**
 * The ASN and registered-country CSVs of @ip-location-db, parsed once into compact range tables
 * and cached as one binary file in the data dir. The file name carries the package versions and
 * the format version, so an upgrade of either package (or of this format) rebuilds it; a warm
 * start reads the file's body straight into one array and makes a few typed-array views of it.
 */
import { closeSync, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { RangeTable, RangeTableBuilder } from "./range-table.js";
import { splitCsvLine } from "./csv-line.js";
import { bundledPackage, type BundledPackage } from "./bundled-packages.js";

const FORMAT = 1;
const FILE_PREFIX = "bundled-geo-";

export interface BundledIndex {
  asn4: RangeTable;
  asn6: RangeTable;
  /** value of an ASN range -> AS number and organisation */
  asnNumbers: Uint32Array;
  asnNames: string[];
  country4: RangeTable;
  country6: RangeTable;
  /** value of a country range -> ISO code */
  countryCodes: string[];
  asnPackage: BundledPackage;
  countryPackage: BundledPackage;
}

interface Logger {
  info(message: string): void;
  warn(message: string): void;
}

/** Loads the cached index from `dataDir/geo`, building (and caching) it first when missing or stale. */
export function loadBundledIndex(dataDir: string, log: Logger): BundledIndex {
  const asnPackage = bundledPackage("@ip-location-db/asn");
  const countryPackage = bundledPackage("@ip-location-db/asn-country");
  const dir = join(dataDir, "geo");
  const fileName = `${FILE_PREFIX}${FORMAT}-${asnPackage.version}-${countryPackage.version}.bin`;
  const path = join(dir, fileName);
  try {
    return { ...decodeFile(path), asnPackage, countryPackage };
  } catch {
    // Missing or unreadable: build it below.
  }
  const started = performance.now();
  // Served from the encoded form, exactly as the next start reads it: the names built from the
  // CSV are slices of its whole text (31 MB) and would keep it alive for the life of the process.
  const encoded = encode(buildFromCsv(asnPackage, countryPackage));
  try {
    mkdirSync(dir, { recursive: true });
    const temporary = `${path}.${process.pid}.tmp`;
    writeFileSync(temporary, encoded);
    renameSync(temporary, path); // atomic: a concurrent reader sees the old file or the whole new one
    for (const stale of readdirSync(dir)) {
      if (stale.startsWith(FILE_PREFIX) && stale !== fileName && !stale.endsWith(".tmp")) rmSync(join(dir, stale), { force: true });
    }
    log.info(`geo: built ${fileName} from the CSV data in ${Math.round(performance.now() - started)} ms`);
  } catch (error) {
    log.warn(`geo: could not cache the bundled index in ${dir} (${(error as Error).message}); it is rebuilt at each start`);
  }
  return { ...decodeBuffer(encoded), asnPackage, countryPackage };
}

type IndexData = Omit<BundledIndex, "asnPackage" | "countryPackage">;

function buildFromCsv(asnPackage: BundledPackage, countryPackage: BundledPackage): IndexData {
  const asnKeys = new Map<string, number>();
  const asnNumbers: number[] = [];
  const asnNames: string[] = [];
  const asnValue = (fields: string[]) => {
    const key = `${fields[2]}|${fields[3] ?? ""}`;
    let value = asnKeys.get(key);
    if (value === undefined) {
      value = asnNumbers.length;
      asnKeys.set(key, value);
      asnNumbers.push(Number(fields[2]));
      asnNames.push(fields[3] ?? "");
    }
    return value;
  };
  const countryKeys = new Map<string, number>();
  const countryCodes: string[] = [];
  const countryValue = (fields: string[]) => {
    const code = fields[2]!.toUpperCase();
    let value = countryKeys.get(code);
    if (value === undefined) {
      value = countryCodes.length;
      countryKeys.set(code, value);
      countryCodes.push(code);
    }
    return value;
  };
  return {
    asn4: readRanges(join(asnPackage.dir, "asn-ipv4-num.csv"), 1, asnValue),
    asn6: readRanges(join(asnPackage.dir, "asn-ipv6-num.csv"), 4, asnValue),
    asnNumbers: Uint32Array.from(asnNumbers),
    asnNames,
    country4: readRanges(join(countryPackage.dir, "asn-country-ipv4-num.csv"), 1, countryValue),
    country6: readRanges(join(countryPackage.dir, "asn-country-ipv6-num.csv"), 4, countryValue),
    countryCodes,
  };
}

/** Reads a `start,end,...` CSV of decimal address numbers, sorted by start. */
function readRanges(path: string, words: 1 | 4, valueOf: (fields: string[]) => number): RangeTable {
  const builder = new RangeTableBuilder(words);
  const text = readFileSync(path, "utf8");
  // Line by line with indexOf rather than split(): no array of half a million lines at once.
  for (let start = 0; start < text.length; ) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end).trimEnd();
    start = end + 1;
    if (line.length === 0) continue;
    const fields = splitCsvLine(line);
    builder.add(numberWords(fields[0]!, words), numberWords(fields[1]!, words), valueOf(fields));
  }
  return builder.build();
}

function numberWords(decimal: string, words: 1 | 4): number[] {
  if (words === 1) return [Number(decimal)];
  const value = BigInt(decimal);
  return [96n, 64n, 32n, 0n].map((shift) => Number((value >> shift) & 0xffffffffn));
}

// File layout: u32 header length, JSON header (strings and section sizes), zero padding to a
// multiple of 4, then the uint32 sections back to back in header order.
const SECTIONS = ["asn4", "asn6", "country4", "country6"] as const;

function encode(data: IndexData): Buffer {
  const arrays: Uint32Array[] = [];
  const tables: Record<string, { words: number; count: number }> = {};
  for (const name of SECTIONS) {
    const table = data[name];
    tables[name] = { words: table.words, count: table.size };
    arrays.push(table.starts, table.ends, table.values);
  }
  arrays.push(data.asnNumbers);
  const header = Buffer.from(
    JSON.stringify({ format: FORMAT, tables, asnNames: data.asnNames, countryCodes: data.countryCodes, asnCount: data.asnNumbers.length }),
  );
  const headerEnd = 4 + header.length;
  const bodyStart = Math.ceil(headerEnd / 4) * 4;
  const prefix = Buffer.alloc(bodyStart);
  prefix.writeUInt32LE(header.length, 0);
  header.copy(prefix, 4);
  return Buffer.concat([prefix, ...arrays.map((array) => Buffer.from(array.buffer, array.byteOffset, array.byteLength))]);
}

/** copies `into.length` bytes from `position` of the encoded index into `into`, or throws */
type ReadAt = (into: Uint8Array, position: number) => void;

/**
 * The index from its encoded form of `size` bytes. The body is read straight into one aligned
 * array, so every section is a view of it without further copies (uint32 is host-endian LE here)
 * and no second copy of the file is left for the collector: at a warm start that was 15 MB more
 * RSS at ready whenever no full collection had come first.
 */
function decode(size: number, readAt: ReadAt): IndexData {
  const lengthBytes = Buffer.alloc(4);
  readAt(lengthBytes, 0);
  const headerLength = lengthBytes.readUInt32LE(0);
  const bodyStart = Math.ceil((4 + headerLength) / 4) * 4;
  if (bodyStart > size || (size - bodyStart) % 4 !== 0) throw new Error("truncated index");
  const headerBytes = Buffer.alloc(headerLength);
  readAt(headerBytes, 4);
  const header = JSON.parse(headerBytes.toString("utf8")) as {
    format: number;
    tables: Record<(typeof SECTIONS)[number], { words: 1 | 4; count: number }>;
    asnNames: string[];
    countryCodes: string[];
    asnCount: number;
  };
  if (header.format !== FORMAT) throw new Error("format changed");
  const body = new Uint32Array((size - bodyStart) / 4);
  readAt(new Uint8Array(body.buffer), bodyStart);
  let offset = 0;
  const take = (count: number) => {
    const view = body.subarray(offset, offset + count);
    offset += count;
    return view;
  };
  const tables = {} as Record<(typeof SECTIONS)[number], RangeTable>;
  for (const name of SECTIONS) {
    const { words, count } = header.tables[name];
    tables[name] = new RangeTable(words, take(count * words), take(count * words), take(count));
  }
  const asnNumbers = take(header.asnCount);
  if (offset !== body.length) throw new Error("truncated index");
  return { ...tables, asnNumbers, asnNames: header.asnNames, countryCodes: header.countryCodes };
}

function decodeBuffer(file: Buffer): IndexData {
  return decode(file.length, (into, position) => {
    if (position + into.length > file.length) throw new Error("truncated index");
    into.set(file.subarray(position, position + into.length));
  });
}

function decodeFile(path: string): IndexData {
  const fd = openSync(path, "r");
  try {
    return decode(fstatSync(fd).size, (into, position) => {
      for (let done = 0; done < into.length; ) {
        const read = readSync(fd, into, done, into.length - done, position + done);
        if (read === 0) throw new Error("truncated index");
        done += read;
      }
    });
  } finally {
    closeSync(fd);
  }
}
