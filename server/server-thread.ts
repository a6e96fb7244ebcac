/**
 * One server of `ipatlas serve --threads N` (server-group.ts): the same command line, run again in
 * this thread, where `runGroup` makes it a server of the group.
 */
import { workerData } from "node:worker_threads";
import { main } from "./cli/main.js";

process.exitCode = await main((workerData as { argv: string[] }).argv);
