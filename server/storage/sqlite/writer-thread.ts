/**
 * The writer thread (./writer.ts): owns a second connection to the SQLite file, already migrated
 * by the main thread, and runs the dialect's write statements on it.
 */
import { workerData } from "node:worker_threads";
import type { GroupBatch, GroupToWrite, ResumedPiece, RowsToWrite, WriteResult } from "../dialect.js";
import { CHECKPOINT_EVERY_MS, connectSqlite } from "./dialect.js";
import { answerRequests } from "./thread-channel.js";
import { unpackGroup, type WriterOptions, type WriterRequest } from "./writer.js";

const options = workerData as WriterOptions & { writerWanted: Int32Array };
const dialect = connectSqlite(options);
dialect.prepare();
/**
 * Turns passed over in a row while a light request (a GET's row) waited for this thread: a turn
 * takes 15-60 ms under load, which the request would wait out. Never more than a few in a row, so
 * steady traffic still checkpoints at least once a second and the WAL does not grow without end.
 */
const MAX_TURNS_PASSED = 3;
let turnsPassed = 0;
// The WAL is checkpointed here, off the event loop (the main connection's autocheckpoint is off).
const checkpoints = setInterval(() => {
  if (Atomics.load(options.writerWanted, 0) === 1 && turnsPassed < MAX_TURNS_PASSED) return void turnsPassed++;
  turnsPassed = 0;
  try {
    dialect.checkpointTurn();
  } catch {
    // busy or closing: the next tick tries again
  }
}, CHECKPOINT_EVERY_MS);
checkpoints.unref();

/**
 * The rows of each bulk that stopped to make way, from the first one not written yet: its next
 * piece (`resume`) is written from them, so the main thread neither builds nor sends them again.
 */
const stoppedBulks = new Map<number, { rows: RowsToWrite; batch: GroupBatch; nextStart: number; nextSeq: number }>();

/** writes the group and keeps the rest of each bulk piece in it that stopped short */
async function write(group: GroupToWrite): Promise<WriteResult[]> {
  const results = await dialect.writeConversions(group);
  group.batches.forEach((batch, i) => {
    const piece = batch.piece;
    const result = results[i]!;
    if (!piece || !result.accepted) return;
    const bulk = piece.bulk ?? result.bulk?.id;
    if (bulk === undefined) return; // a first piece that wrote the whole bulk
    const written = result.written ?? batch.end - batch.start;
    if (batch.start + written >= batch.end) return void stoppedBulks.delete(bulk);
    const firstSeq = piece.bulk === null ? result.bulk!.firstSeq : piece.seq;
    stoppedBulks.set(bulk, { rows: group.rows, batch, nextStart: batch.start + written, nextSeq: firstSeq + written });
  });
  return results;
}

/** an aborted bulk's kept rows go with it */
async function abort(bulk: number): Promise<void> {
  stoppedBulks.delete(bulk);
  await dialect.abortBulk(bulk);
}

/** the next piece of a stopped bulk, from its kept rows; null when they are not here (or not where the caller is) */
async function resume({ piece, ...quota }: ResumedPiece): Promise<WriteResult | null> {
  const stopped = stoppedBulks.get(piece.bulk);
  if (!stopped || stopped.nextSeq !== piece.seq) return null;
  const batch = { ...stopped.batch, ...quota, start: stopped.nextStart, piece };
  return (await write({ batches: [batch], rows: stopped.rows }))[0]!;
}

answerRequests<WriterRequest>(
  async (message) =>
    message.kind === "write"
      ? write(unpackGroup(message.group))
      : message.kind === "resume"
        ? resume(message.batch)
        : message.kind === "dimensions"
          ? dialect.saveDimensions(message.dims)
          : message.kind === "abort"
            ? abort(message.bulk)
            : dialect.touchKeys(message.uses),
  async () => {
    clearInterval(checkpoints);
    await dialect.close();
  },
);
