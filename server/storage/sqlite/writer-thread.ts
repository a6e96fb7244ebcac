/**
 * The writer thread (./writer.ts): owns a second connection to the SQLite file, already migrated
 * by the main thread, and runs the dialect's write statements on it.
 */
import { parentPort, workerData } from "node:worker_threads";
import type { Dimension } from "../record-codec.js";
import { CHECKPOINT_EVERY_MS, connectSqlite } from "./dialect.js";
import { unpackGroup, type WriterOptions, type WriterReply, type WriterRequest } from "./writer.js";

const dialect = connectSqlite(workerData as WriterOptions & { writerWanted: Int32Array });
dialect.prepare();
// The WAL is checkpointed here, off the event loop (the main connection's autocheckpoint is off).
const checkpoints = setInterval(() => {
  try {
    dialect.checkpoint();
  } catch {
    // busy or closing: the next tick tries again
  }
}, CHECKPOINT_EVERY_MS);
checkpoints.unref();

parentPort!.on("message", async (message: WriterRequest) => {
  let reply: WriterReply;
  try {
    if (message.kind === "close") {
      clearInterval(checkpoints);
      await dialect.close();
      parentPort!.postMessage({ id: message.id, result: null } satisfies WriterReply);
      return;
    }
    const result =
      message.kind === "write"
        ? await dialect.writeConversions(unpackGroup(message.group))
        : message.kind === "dimensions"
          ? await dialect.saveDimensions(message.table, message.dims.map((d) => ({ ...d, hash: Buffer.from(d.hash) }) as Dimension))
          : message.kind === "abort"
            ? await dialect.abortBulk(message.bulk)
            : await dialect.touchKeys(message.uses);
    reply = { id: message.id, result };
  } catch (error) {
    reply = { id: message.id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(reply);
});
