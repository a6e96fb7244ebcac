/**
 * The streaming loop of `ipatlas convert`: lines in, one record out per non-empty line, in input
 * order. Lines are read with readline and converted a batch at a time, and output waits for the
 * reader to drain, so memory stays flat however long the input is.
 */
import { once } from "node:events";
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { findAddress } from "./find-address.js";
import type { RecordFormat } from "./formats.js";
import type { Progress } from "./progress.js";
import type { AddressSource } from "./sources.js";

export interface StreamOptions {
  input: Readable;
  output: Writable;
  source: AddressSource;
  format: RecordFormat;
  progress?: Progress | null;
}

export interface StreamSummary {
  /** records written */
  records: number;
  /** lines without an address (written with only `ip` set to the line) */
  invalid: number;
}

async function write(output: Writable, text: string): Promise<void> {
  if (text && !output.write(text)) await once(output, "drain");
}

/**
 * The inputs as the engine takes them: the address found in each non-empty line, else the line.
 * `onLine` gets each line's length (+1 for its end), for the progress of a file of known size.
 */
export async function* lineInputs(input: Readable, onLine?: (chars: number) => void): AsyncGenerator<string> {
  const lines = createInterface({ input, crlfDelay: Infinity });
  for await (const line of lines) {
    onLine?.(line.length + 1);
    if (line.trim() === "") continue;
    yield findAddress(line) ?? line.trim();
  }
}

export async function convertStream(options: StreamOptions): Promise<StreamSummary> {
  const { input, output, source, format, progress } = options;
  // characters of the lines consumed: bytes for ASCII input, close enough for a progress bar
  let bytes = 0;
  let records = 0;
  let invalid = 0;

  const flush = async (batch: string[]) => {
    const converted = await source.convert(batch);
    let text = "";
    for (const data of converted) {
      if (data.type === null) invalid++;
      text += format.record(data, records++);
    }
    await write(output, text);
    progress?.update(bytes, records);
  };

  await write(output, format.start);
  let batch: string[] = [];
  for await (const item of lineInputs(input, progress ? (chars) => (bytes += chars) : undefined)) {
    batch.push(item);
    if (batch.length >= source.batchSize) {
      await flush(batch);
      batch = [];
    }
  }
  if (batch.length) await flush(batch);
  await write(output, format.end(records));
  progress?.stop();
  return { records, invalid };
}
