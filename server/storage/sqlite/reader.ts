/**
 * The list's scans on a thread of their own (`reader-thread.ts`, one more connection to the
 * file). A count of an ipSearch's matches, or a page far into a project's rows, reads up to every
 * row: ~0.3 s at 1M rows, which on the event loop every other request would wait out. WAL lets
 * the thread read beside the writers, and each of its statements sees every commit made before
 * it started. The thread is started by the first list; the lists reach it one at a time, taking
 * turns between projects (../list-turns.ts; docs/storage.md "Lists off the event loop, taking turns").
 */
import type { PageSource } from "../dialect.js";
import type { IpSearchPlan } from "../ip-prefix.js";
import type { ConversionRow } from "../rows.js";
import { ThreadChannel } from "./thread-channel.js";

export type ReaderRequest =
  | { kind: "count"; project: number; plan: IpSearchPlan }
  | { kind: "page"; project: number; source: PageSource; limit: number; offset: number; before?: number };

export interface ReaderOptions {
  dataDir: string;
}

export class SqliteReader {
  private readonly thread: ThreadChannel<ReaderRequest>;

  constructor(options: ReaderOptions) {
    this.thread = new ThreadChannel(new URL("./reader-thread.ts", import.meta.url), options, "reader");
  }

  /** whether the thread failed or ended */
  get stopped(): boolean {
    return this.thread.stopped;
  }

  /** the project's rows that the plan matches (SqliteDialect.countMatches) */
  count(project: number, plan: IpSearchPlan): Promise<number> {
    return this.thread.request({ kind: "count", project, plan }) as Promise<number>;
  }

  /** a page of the project's rows (SqliteDialect.readPage) */
  page(project: number, source: PageSource, limit: number, offset: number, before?: number): Promise<ConversionRow[]> {
    return this.thread.request({ kind: "page", project, source, limit, offset, before }) as Promise<ConversionRow[]>;
  }

  /** The caller (the dialect) waited for its requests first. */
  close(): Promise<void> {
    return this.thread.close();
  }
}
