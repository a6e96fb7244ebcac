/**
 * `ipatlas serve --workers N` and `--threads N`: N servers on one machine sharing one port and
 * the database, on either backend (quotas are exact across servers because each reservation is
 * one atomic statement in the shared database). The servers are processes (`processes`:
 * node:cluster, whose primary holds the port and hands the connections out) or threads of one
 * process (`threads`: each listens on the port itself with SO_REUSEPORT and the kernel spreads
 * the connections; they share Node's own memory, ~120 MB less a server, docs/api.md "Running").
 *
 * The first server starts alone, so migrations and the first-run project happen exactly once;
 * the others start after it is ready. No server listens before all are ready (`readyToListen`):
 * a client that connects at once (a load balancer's pool, a benchmark) keeps its connections on
 * the server that took them, so a server that listened alone would serve them all. A server that
 * dies after it has served is replaced; one that dies before it ever listened stops the whole
 * group (no crash loop of stack traces).
 * SIGTERM/SIGINT reach every server, which shut down gracefully; the primary exits 0 once all did.
 */
import cluster from "node:cluster";
import { isMainThread, parentPort, workerData, type Worker as Thread } from "node:worker_threads";
import type { WriteTurn } from "./storage/index.js";
import { LightAhead } from "./storage/light-ahead.js";
import { typescriptWorker } from "./typescript-worker.js";
import { threadFiles } from "./geo/sources/whole-files.js";

export type GroupKind = "processes" | "threads";

/** what the servers of a group and their primary say to each other */
type GroupMessage =
  | { ipatlas: "ready"; files?: Array<[string, SharedArrayBuffer]> }
  | { ipatlas: "listen"; port?: number }
  | { ipatlas: "listening"; port: number }
  | { ipatlas: "take-turn"; light: boolean }
  | { ipatlas: "turn" }
  | { ipatlas: "release-turn" }
  | { ipatlas: "make-way" }
  | { ipatlas: "stop"; signal: NodeJS.Signals }
  | { ipatlas: "scrape"; id: number }
  | { ipatlas: "scraped"; id: number; metrics: unknown };

function isGroupMessage(message: unknown): message is GroupMessage {
  return typeof message === "object" && message !== null && typeof (message as { ipatlas?: unknown }).ipatlas === "string";
}

/** marks a thread started as a server of a group (its workerData), apart from SQLite's threads */
const SERVER_THREAD = "ipatlas:server-thread";

interface ServerThreadData {
  role: typeof SERVER_THREAD;
  id: number;
  argv: string[];
  /** the data files the first server read, shared (geo/sources/whole-files.ts) */
  sharedFiles: Array<[string, SharedArrayBuffer]>;
}

/** a server's line to its primary */
interface Primary {
  id: number;
  kind: GroupKind;
  send(message: GroupMessage): void;
  on(listener: (message: GroupMessage) => void): () => void;
  leave(): void;
}

let primaryLine: Primary | null | undefined;

/** In a server of a group: its line to the primary; elsewhere null. */
function primary(): Primary | null {
  if (primaryLine !== undefined) return primaryLine;
  const listen = (add: (l: (m: unknown) => void) => void, remove: (l: (m: unknown) => void) => void) => (listener: (message: GroupMessage) => void) => {
    const onMessage = (message: unknown) => {
      if (isGroupMessage(message)) listener(message);
    };
    add(onMessage);
    return () => remove(onMessage);
  };
  const thread = !isMainThread && (workerData as ServerThreadData | null)?.role === SERVER_THREAD ? (workerData as ServerThreadData) : null;
  if (cluster.isWorker) {
    primaryLine = {
      id: cluster.worker!.id,
      kind: "processes",
      send: (message) => void process.send!(message),
      on: listen((l) => process.on("message", l), (l) => process.off("message", l)),
      // the IPC channel to the primary would keep a finished (or failed) worker alive
      leave: () => cluster.worker?.disconnect(),
    };
  } else if (thread) {
    primaryLine = {
      id: thread.id,
      kind: "threads",
      send: (message) => parentPort!.postMessage(message),
      on: listen((l) => parentPort!.on("message", l), (l) => parentPort!.off("message", l)),
      leave: () => parentPort!.close(),
    };
  } else {
    primaryLine = null;
  }
  return primaryLine;
}

/** the next message of `kind` from the primary (listened for from this call on) */
function nextMessage<K extends GroupMessage["ipatlas"]>(line: Primary, kind: K): Promise<Extract<GroupMessage, { ipatlas: K }>> {
  return new Promise((resolve) => {
    const off = line.on((message) => {
      if (message.ipatlas !== kind) return;
      off();
      resolve(message as Extract<GroupMessage, { ipatlas: K }>);
    });
  });
}

/** In a server of a group: which one (from 1) and of what kind; elsewhere null. */
export function groupMember(): { id: number; kind: GroupKind } | null {
  const line = primary();
  return line && { id: line.id, kind: line.kind };
}

/**
 * In a server of a group: the turn at writing the SQLite file (storage's `WriteTurn`), handed out
 * by the primary one server at a time; elsewhere undefined (one writer per server needs none).
 */
export function groupWriteTurn(): WriteTurn | undefined {
  const line = primary();
  if (!line) return undefined;
  const granted: Array<() => void> = [];
  const lightWaiting = new Set<() => void>();
  line.on((message) => {
    if (message.ipatlas === "turn") granted.shift()?.();
    else if (message.ipatlas === "make-way") for (const listener of lightWaiting) listener();
  });
  return {
    take: (light) =>
      new Promise<void>((resolve) => {
        granted.push(resolve);
        line.send({ ipatlas: "take-turn", light });
      }),
    release: () => line.send({ ipatlas: "release-turn" }),
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

/** How a server listens: on the group's port, and with SO_REUSEPORT when it is one of threads. */
export interface ListenTurn {
  /** the port the group's first server took (a group of threads asked for port 0) */
  port?: number;
  reusePort: boolean;
}

/**
 * In a server of a group: tells the primary this server is ready and waits until every server
 * is; elsewhere resolves at once. Called right before listening; `listening` right after.
 */
export function readyToListen(): Promise<ListenTurn> {
  const line = primary();
  if (!line) return Promise.resolve({ reusePort: false });
  const listen = nextMessage(line, "listen");
  // a thread hands on the data files it read, for the threads started after it to share
  line.send(line.kind === "threads" ? { ipatlas: "ready", files: threadFiles.handOn() } : { ipatlas: "ready" });
  return listen.then(({ port }) => ({ port, reusePort: line.kind === "threads" }));
}

export function listening(port: number): void {
  primary()?.send({ ipatlas: "listening", port });
}

/**
 * In a server thread: resolves when the primary asks it to stop (signals reach only the main
 * thread); elsewhere never (a process gets the signal itself).
 */
export function stopAsked(): Promise<NodeJS.Signals> {
  const line = primary();
  if (line?.kind !== "threads") return new Promise(() => {});
  return nextMessage(line, "stop").then(({ signal }) => signal);
}

/**
 * In a server thread: answers the primary's scrapes with this server's metrics (prom-client's
 * JSON); elsewhere nothing (a cluster worker answers prom-client's own IPC, metrics.ts).
 */
export function answerScrapes(collect: () => Promise<unknown>): void {
  const line = primary();
  if (line?.kind !== "threads") return;
  line.on((message) => {
    if (message.ipatlas !== "scrape") return;
    void collect().then(
      (metrics) => line.send({ ipatlas: "scraped", id: message.id, metrics }),
      () => line.send({ ipatlas: "scraped", id: message.id, metrics: [] }),
    );
  });
}

/** The primary's view of its running group, for what serves all its servers at once. */
export interface RunningGroup {
  /** each listening server's answer to a scrape (`answerScrapes`), those that answer within 5 s */
  scrape(): Promise<unknown[]>;
}

export interface GroupOptions {
  servers: number;
  kind: GroupKind;
  /** called in the primary once its servers are told to listen */
  started?: (group: RunningGroup) => void | Promise<void>;
  /** where the primary reports server deaths (default: stderr) */
  log?: (line: string) => void;
  /** wait before replacing a dead server */
  restartDelayMs?: number;
}

/** Runs `runServer` in this process or thread (servers <= 1, or inside a group), or as a group of N. */
export async function runGroup(options: GroupOptions, runServer: () => Promise<number>): Promise<number> {
  const line = primary();
  if (line) {
    try {
      return await runServer();
    } finally {
      line.leave();
    }
  }
  if (options.servers <= 1) return runServer();
  return runPrimary(options);
}

/** as long as prom-client's cluster aggregation waits for a worker */
const SCRAPE_TIMEOUT_MS = 5_000;

/** the primary's handle on one server of its group */
interface Member {
  readonly name: string;
  send(message: GroupMessage): boolean;
  onMessage(listener: (message: GroupMessage) => void): void;
  onExit(listener: (code: number | null, signal: string | null) => void): void;
  stop(signal: NodeJS.Signals): void;
}

function forkProcess(): Member {
  const worker = cluster.fork();
  return {
    name: `worker ${worker.process.pid}`,
    send: (message) => worker.isConnected() && worker.send(message),
    onMessage: (listener) => void worker.on("message", (message: unknown) => isGroupMessage(message) && listener(message)),
    onExit: (listener) => void worker.once("exit", listener),
    stop: (signal) => void worker.process.kill(signal),
  };
}

function startThread(id: number, sharedFiles: Array<[string, SharedArrayBuffer]>, log: (line: string) => void): Member {
  // the thread runs the same command line, which makes it a server of this group (runGroup)
  const data: ServerThreadData = { role: SERVER_THREAD, id, argv: process.argv.slice(2), sharedFiles };
  const thread: Thread = typescriptWorker(new URL("./server-thread.ts", import.meta.url), { workerData: data });
  let alive = true;
  thread.once("exit", () => (alive = false));
  // what the thread could not catch itself (main() reports the rest on stderr)
  thread.on("error", (error) => log(`thread ${id}: ${error.message.split("\n")[0]}`));
  const send = (message: GroupMessage) => {
    if (alive) thread.postMessage(message);
    return alive;
  };
  return {
    name: `thread ${id}`,
    send,
    onMessage: (listener) => void thread.on("message", (message: unknown) => isGroupMessage(message) && listener(message)),
    onExit: (listener) => void thread.once("exit", (code) => listener(code, null)),
    stop: (signal) => void send({ ipatlas: "stop", signal }),
  };
}

async function runPrimary(options: GroupOptions): Promise<number> {
  const log = options.log ?? ((line: string) => process.stderr.write(line + "\n"));
  const restartDelayMs = options.restartDelayMs ?? 1000;
  const members = new Set<Member>();
  const listened = new WeakSet<Member>();
  let stopping = false;
  let nextThreadId = 1;

  // set once the first servers all are ready; a replacement server listens as soon as it is
  let allReady = false;
  // threads listen on the port the first one took (it may have asked for port 0); processes share
  // the primary's handle
  let groupPort: number | undefined;
  // the files the first thread read, for the others it starts with; let go once they all have
  // started, so that a file replaced later is not kept alive here (a replacement reads its own)
  let sharedFiles: Array<[string, SharedArrayBuffer]> = [];
  const turns = new WriteTurns<Member>((member, message) => member.send({ ipatlas: message }));
  const start = () =>
    new Promise<Member>((resolve, reject) => {
      const member = options.kind === "threads" ? startThread(nextThreadId++, sharedFiles, log) : forkProcess();
      members.add(member);
      member.onExit((code, signal) => {
        members.delete(member);
        turns.leave(member);
        const early = listened.has(member) ? null : new Error(`${member.name} exited before listening (${signal ?? `code ${code}`})`);
        // settles a start still waiting for this server to be ready (a no-op once it was)
        if (early) reject(early);
        onExit(member, code, signal, early);
      });
      member.onMessage((message) => {
        if (message.ipatlas === "scraped") scrapes.get(message.id)?.(message.metrics);
        else if (message.ipatlas === "take-turn") turns.take(member, message.light);
        else if (message.ipatlas === "release-turn") turns.release(member);
        else if (message.ipatlas === "listening") {
          listened.add(member);
          if (groupPort === undefined && options.kind === "threads") {
            groupPort = message.port;
            for (const other of members) if (other !== member) other.send({ ipatlas: "listen", port: groupPort });
          }
        } else if (message.ipatlas === "ready") {
          if (!allReady && message.files?.length) sharedFiles = message.files;
          if (allReady) member.send({ ipatlas: "listen", port: groupPort });
          resolve(member);
        }
      });
    });

  const stopAll = (signal: NodeJS.Signals) => {
    stopping = true;
    for (const member of members) member.stop(signal);
  };
  let nextScrape = 1;
  const scrapes = new Map<number, (metrics: unknown) => void>();
  const group: RunningGroup = {
    scrape: () =>
      Promise.all(
        [...members].filter((member) => listened.has(member)).map(
          (member) =>
            new Promise<unknown>((resolve) => {
              const id = nextScrape++;
              const timer = setTimeout(() => done(null), SCRAPE_TIMEOUT_MS);
              const done = (metrics: unknown) => {
                clearTimeout(timer);
                scrapes.delete(id);
                resolve(metrics);
              };
              scrapes.set(id, done);
              if (!member.send({ ipatlas: "scrape", id })) done(null);
            }),
        ),
      ).then((answers) => answers.filter((metrics) => metrics !== null)),
  };
  const onSignal = (signal: NodeJS.Signals) => stopAll(signal === "SIGINT" ? "SIGINT" : "SIGTERM");
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);

  let failed = false;
  let allExited!: () => void;
  const exited = new Promise<void>((resolve) => (allExited = resolve));
  const onExit = (member: Member, code: number | null, signal: string | null, early: Error | null) => {
    if (stopping) {
      if (code !== 0 && code !== null) failed = true;
      if (members.size === 0) allExited();
      return;
    }
    // one that never listened (before or after it was ready) stops the group; a serving one is replaced
    if (early) return fail(early);
    log(`${member.name} died (${signal ?? `code ${code}`}); starting a new one`);
    setTimeout(() => {
      if (!stopping) start().catch((error: Error) => fail(error));
    }, restartDelayMs).unref();
  };
  const fail = (error: Error) => {
    if (stopping) return; // asked to stop while a server was still starting: not a failure
    log(`Cannot start the ${options.kind === "threads" ? "server threads" : "cluster"}: ${error.message}`);
    failed = true;
    stopAll("SIGTERM");
    if (members.size === 0) allExited();
  };

  try {
    const first = await start();
    const rest = await Promise.all(Array.from({ length: options.servers - 1 }, start));
    allReady = true;
    sharedFiles = [];
    // threads: the first listens alone, and tells the others its port (above)
    for (const member of options.kind === "threads" ? [first] : [first, ...rest]) member.send({ ipatlas: "listen" });
    await options.started?.(group);
  } catch (error) {
    fail(error as Error);
  }
  if (members.size === 0) stopping = true;
  else await exited;
  process.off("SIGTERM", onSignal);
  process.off("SIGINT", onSignal);
  return failed ? 1 : 0;
}

