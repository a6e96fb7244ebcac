/**
 * `ipatlas serve --workers N` (issue #6): N server processes on one machine sharing one port
 * through node:cluster, on either backend (quotas are exact across processes because each
 * reservation is one atomic statement in the shared database).
 *
 * The first worker starts alone, so migrations and the first-run project happen exactly once;
 * the others start after it is ready. No worker listens before all are ready (`readyToListen`):
 * a client that connects at once (a load balancer's pool, a benchmark) keeps its connections on
 * the worker that took them, so a worker that listened alone would serve them all. A worker that
 * dies after it has served is replaced; one that dies before it ever listened stops the whole
 * cluster (no crash loop of stack traces).
 * SIGTERM/SIGINT reach every worker, which shut down gracefully; the primary exits 0 once all did.
 */
import cluster, { type Worker } from "node:cluster";
import type { WriteTurn } from "./storage/index.js";
import { LightAhead } from "./storage/light-ahead.js";

const READY = "ipatlas:ready";
const LISTEN = "ipatlas:listen";
const TAKE_TURN = "ipatlas:take-turn";
const TAKE_LIGHT_TURN = "ipatlas:take-light-turn";
const TURN = "ipatlas:turn";
const RELEASE_TURN = "ipatlas:release-turn";
const MAKE_WAY = "ipatlas:make-way";

/**
 * In a cluster worker: the turn at writing the SQLite file (storage's `WriteTurn`), handed out by
 * the primary one worker at a time; elsewhere undefined (one writer per process needs none).
 */
export function clusterWriteTurn(): WriteTurn | undefined {
  if (!cluster.isWorker) return undefined;
  const granted: Array<() => void> = [];
  const lightWaiting = new Set<() => void>();
  process.on("message", (message: unknown) => {
    if (message === TURN) granted.shift()?.();
    else if (message === MAKE_WAY) for (const listener of lightWaiting) listener();
  });
  return {
    take: (light) =>
      new Promise<void>((resolve) => {
        granted.push(resolve);
        process.send!(light ? TAKE_LIGHT_TURN : TAKE_TURN);
      }),
    release: () => void process.send!(RELEASE_TURN),
    onLightWaiting: (listener) => void lightWaiting.add(listener),
  };
}

/**
 * The primary's side of the write turn: one holder at a time. A light request (a GET's rows) is
 * granted ahead of heavier ones that asked before it, taking turns with them so a stream of GETs
 * cannot hold a bulk back (the group-commit queue's policy, storage/light-ahead.ts), and the
 * holder is told that it waits (`make-way`): a bulk it is writing then stops at its next piece
 * (docs/storage.md "Bulks in pieces"), as it does for its own process's GETs. `send` returns false
 * for a party that is gone.
 */
export class WriteTurns<P> {
  private holder: P | null = null;
  private waiting: Array<{ party: P; light: boolean }> = [];
  private readonly turns = new LightAhead();

  constructor(private readonly send: (party: P, message: "turn" | "make-way") => boolean) {}

  take(party: P, light: boolean): void {
    if (this.holder === null) return void this.grant(party);
    this.waiting.push({ party, light });
    if (light) this.send(this.holder, "make-way");
  }

  release(party: P): void {
    if (this.holder === party) this.next();
  }

  /** a party that is gone (a worker that died holding the turn, or waiting) keeps no one waiting */
  leave(party: P): void {
    this.waiting = this.waiting.filter((w) => w.party !== party);
    if (this.holder === party) this.next();
  }

  private next(): void {
    this.holder = null;
    while (this.waiting.length) {
      const { party } = this.waiting.splice(this.turns.next(this.waiting, (w) => w.light), 1)[0]!;
      if (this.grant(party)) return;
    }
  }

  private grant(party: P): boolean {
    if (!this.send(party, "turn")) return false;
    this.holder = party;
    if (this.waiting.some((w) => w.light)) this.send(party, "make-way");
    return true;
  }
}

/**
 * In a cluster worker: tells the primary this worker is ready and waits until every worker is;
 * elsewhere resolves at once. Called right before listening.
 */
export function readyToListen(): Promise<void> {
  if (!cluster.isWorker) return Promise.resolve();
  return new Promise((resolve) => {
    const onMessage = (message: unknown) => {
      if (message !== LISTEN) return;
      process.off("message", onMessage);
      resolve();
    };
    process.on("message", onMessage);
    process.send!(READY);
  });
}

export interface ClusterOptions {
  workers: number;
  /** where the primary reports worker deaths (default: stderr) */
  log?: (line: string) => void;
  /** wait before replacing a dead worker */
  restartDelayMs?: number;
}

/** Runs `runWorker` in this process (workers <= 1, or inside a worker), or as N cluster workers. */
export async function runClustered(options: ClusterOptions, runWorker: () => Promise<number>): Promise<number> {
  if (cluster.isWorker) {
    try {
      return await runWorker();
    } finally {
      // The IPC channel to the primary would keep a finished (or failed) worker alive: let it go.
      cluster.worker?.disconnect();
    }
  }
  if (options.workers <= 1) return runWorker();
  return runPrimary(options);
}

async function runPrimary(options: ClusterOptions): Promise<number> {
  const log = options.log ?? ((line: string) => process.stderr.write(line + "\n"));
  const restartDelayMs = options.restartDelayMs ?? 1000;
  const listened = new WeakSet<Worker>();
  let stopping = false;

  // set once the first workers all are ready; a replacement worker listens as soon as it is
  let allReady = false;
  const turns = new WriteTurns<Worker>((worker, message) => {
    if (!worker.isConnected()) return false;
    worker.send(message === "turn" ? TURN : MAKE_WAY);
    return true;
  });
  const fork = () =>
    new Promise<Worker>((resolve, reject) => {
      const worker = cluster.fork();
      const onExit = (code: number | null, signal: string | null) =>
        reject(new Error(`worker ${worker.process.pid} exited before listening (${signal ?? `code ${code}`})`));
      worker.once("exit", onExit);
      worker.on("message", (message: unknown) => {
        if (message === TAKE_TURN || message === TAKE_LIGHT_TURN) turns.take(worker, message === TAKE_LIGHT_TURN);
        else if (message === RELEASE_TURN) turns.release(worker);
        if (message !== READY) return;
        if (allReady) worker.send(LISTEN);
        resolve(worker);
      });
      worker.once("listening", () => {
        listened.add(worker);
        worker.off("exit", onExit);
      });
    });

  const stopAll = (signal: NodeJS.Signals) => {
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
  };
  const onSignal = (signal: NodeJS.Signals) => stopAll(signal === "SIGINT" ? "SIGINT" : "SIGTERM");
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);

  let failed = false;
  const allExited = new Promise<void>((resolve) => {
    cluster.on("exit", (worker, code, signal) => {
      turns.leave(worker);
      if (stopping) {
        if (code !== 0 && code !== null) failed = true;
        if (Object.keys(cluster.workers ?? {}).length === 0) resolve();
        return;
      }
      // A worker that never listened is reported by fork(); only a serving worker is replaced.
      if (!listened.has(worker)) return;
      log(`worker ${worker.process.pid} died (${signal ?? `code ${code}`}); starting a new one`);
      setTimeout(() => {
        if (!stopping) fork().catch((error: Error) => fail(error));
      }, restartDelayMs).unref();
    });
  });
  const fail = (error: Error) => {
    if (stopping) return; // asked to stop while a worker was still starting: not a failure
    log(`Cannot start the cluster: ${error.message}`);
    failed = true;
    stopAll("SIGTERM");
  };

  try {
    const first = await fork();
    const workers = [first, ...(await Promise.all(Array.from({ length: options.workers - 1 }, fork)))];
    allReady = true;
    for (const worker of workers) worker.send(LISTEN);
  } catch (error) {
    fail(error as Error);
  }
  if (Object.keys(cluster.workers ?? {}).length === 0) stopping = true;
  else await allExited;
  process.off("SIGTERM", onSignal);
  process.off("SIGINT", onSignal);
  return failed ? 1 : 0;
}
