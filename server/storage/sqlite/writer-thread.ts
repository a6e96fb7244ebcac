/**
 * The writer thread (./writer.ts): owns a second connection to the SQLite file, already migrated
 * by the main thread, and runs the dialect's write statements on it.
 */
import { parentPort, workerData } from "node:worker_threads";
import type { Dimension } from "../record-codec.js";
import { connectSqlite } from "./dialect.js";
import { unpackGroup, type WriterOptions, type WriterReply, type WriterRequest } from "./writer.js";

const dialect = connectSqlite(workerData as WriterOptions);
dialect.prepare();

parentPort!.on("message", async (message: WriterRequest) => {
  let reply: WriterReply;
  try {
    if (message.kind === "close") {
      await dialect.close();
      parentPort!.postMessage({ id: message.id, result: null } satisfies WriterReply);
      return;
    }
    const result =
      message.kind === "write"
        ? await dialect.writeConversions(unpackGroup(message.group))
        : message.kind === "dimensions"
          ? await dialect.saveDimensions(message.table, message.dims.map((d) => ({ ...d, hash: Buffer.from(d.hash) }) as Dimension))
          : await dialect.touchKeys(message.uses);
    reply = { id: message.id, result };
  } catch (error) {
    reply = { id: message.id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(reply);
});
