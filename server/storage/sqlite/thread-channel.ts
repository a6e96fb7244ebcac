/**
 * A thread of its own with a second connection to the SQLite file, spoken to in numbered
 * requests: the writer (./writer.ts) and the reader (./reader.ts) both go through it. This end
 * is the main thread's; `answerRequests` is the thread's.
 */
import { parentPort, type Worker } from "node:worker_threads";
import { typescriptWorker } from "../../typescript-worker.js";

/** numbered, so a reply finds its caller; `close` ends the thread's connection */
export type ThreadRequest<R extends { kind: string }> = (R | { kind: "close" }) & { id: number };

export type ThreadReply = { id: number; result: unknown } | { id: number; error: string };

export class ThreadChannel<R extends { kind: string }> {
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private nextId = 1;
  /** whether anything was asked of the thread: an unused one is ended without a goodbye */
  private used = false;
  private failure: Error | null = null;
  private readonly exited: Promise<void>;

  /** `script`: the thread's module (TypeScript, like the rest of the server); `name` says which thread stopped */
  constructor(script: URL, workerData: unknown, name: string) {
    this.worker = typescriptWorker(script, { workerData });
    // An idle thread must not keep a process alive; a busy one does (see request).
    this.worker.unref();
    this.worker.on("message", (reply: ThreadReply) => this.settle(reply));
    this.worker.on("error", (error) => this.fail(error));
    this.exited = new Promise((resolve) =>
      this.worker.once("exit", () => {
        this.fail(new Error(`The SQLite ${name} thread stopped`));
        resolve();
      }),
    );
  }

  /** whether the thread failed or ended */
  get stopped(): boolean {
    return this.failure !== null;
  }

  /** whether a request is in flight: the thread is at work, or has work waiting */
  get busy(): boolean {
    return this.pending.size > 0;
  }

  request(message: R, transfer: ArrayBuffer[] = []): Promise<unknown> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    this.used = true;
    return new Promise((resolve, reject) => {
      if (!this.pending.size) this.worker.ref();
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...message, id }, transfer);
    });
  }

  /**
   * Closes the thread's connection (the caller waited for its requests first), then ends the
   * thread. One never used (a CLI command) is ended at once, even mid-start.
   */
  async close(): Promise<void> {
    if (this.used && !this.failure) await this.request({ kind: "close" } as R).catch(() => {});
    this.worker.ref();
    await this.worker.terminate();
    await this.exited;
  }

  private settle(reply: ThreadReply): void {
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.pending.delete(reply.id);
    if (!this.pending.size) this.worker.unref();
    if ("error" in reply) waiting.reject(new Error(reply.error));
    else waiting.resolve(reply.result);
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }
}

/** The thread's end: each request answered in turn by `answer`; `close` by `close`, then the reply. */
export function answerRequests<R extends { kind: string }>(answer: (request: R) => Promise<unknown>, close: () => Promise<void>): void {
  parentPort!.on("message", async (message: ThreadRequest<R>) => {
    let reply: ThreadReply;
    try {
      if (message.kind === "close") {
        await close();
        reply = { id: message.id, result: null };
      } else {
        reply = { id: message.id, result: await answer(message as R) };
      }
    } catch (error) {
      reply = { id: message.id, error: error instanceof Error ? error.message : String(error) };
    }
    parentPort!.postMessage(reply);
  });
}
