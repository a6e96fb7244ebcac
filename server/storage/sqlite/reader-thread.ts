/**
 * The reader thread (./reader.ts): its own connection to the SQLite file, already migrated by the
 * main thread, answering the list's counts and pages with the dialect's own statements.
 */
import { workerData } from "node:worker_threads";
import { connectSqlite } from "./dialect.js";
import type { ReaderOptions, ReaderRequest } from "./reader.js";
import { answerRequests } from "./thread-channel.js";

const dialect = connectSqlite(workerData as ReaderOptions);
dialect.prepare();

answerRequests<ReaderRequest>(
  async (request) =>
    request.kind === "count" ? dialect.countMatches(request.project, request.plan) : dialect.readPage(request.project, request.source, request.limit, request.offset, request.before),
  () => dialect.close(),
);
