// Started by bench/ceiling.ts: the least a Node server can do for echoip's answer, to measure what
// Node itself reaches on this machine. GET /json?ip=A answers the GeoLite2 record of A as JSON;
// nothing else (no key, no envelope, no log).
//
//   node bench/_bare-lookup.mjs PORT CITY_MMDB http|hono|sqlite|sqlite-group [WORKERS [processes|threads]]
//
// `http`: node:http and JSON.stringify; `hono`: a Hono route on @hono/node-server with c.json;
// `sqlite`: as `http`, and each address first inserted as a row of its own (one autocommit INSERT
// into a fresh SQLite file, WAL, synchronous=NORMAL as IP Atlas opens it; the address and the
// time only, a row smaller than IP Atlas's ~140 bytes, so the ceiling is generous); `sqlite-group`: the
// answers of one event-loop turn inserted in one transaction, each sent after its commit (group
// commit, as IP Atlas writes). WORKERS > 1 runs that many node:cluster processes on the port, or
// with `threads` (`http` only) that many worker threads of one process, each listening on the port
// itself (`reusePort`, Linux) with a reader over one shared copy of the file: the memory of one
// process, the cores of several.
import cluster from "node:cluster";
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isMainThread, Worker, workerData } from "node:worker_threads";
import { LRUCache } from "lru-cache";
import maxmind, { Reader } from "maxmind";

const [port, city, kind, workers = "1", spread = "processes"] = isMainThread ? process.argv.slice(2) : workerData.argv;
const threads = spread === "threads";
if (threads && kind !== "http") throw new Error("threads: http only");

if (threads && isMainThread) {
  const file = readFileSync(city);
  const shared = new SharedArrayBuffer(file.length);
  new Uint8Array(shared).set(file);
  for (let i = 0; i < Number(workers); i++) new Worker(new URL(import.meta.url), { workerData: { argv: process.argv.slice(2), shared } });
  process.on("SIGTERM", () => process.exit(0));
} else if (!threads && Number(workers) > 1 && cluster.isPrimary) {
  for (let i = 0; i < Number(workers); i++) cluster.fork();
  process.on("SIGTERM", () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.kill("SIGTERM");
    process.exit(0);
  });
} else {
  // the cache IP Atlas gives its own reader (server/geo/sources)
  const reader = threads ? new Reader(Buffer.from(workerData.shared), { cache: new LRUCache({ max: 20_000 }) }) : await maxmind.open(city, { cache: { max: 20_000 } });
  const lookup = (ip) => (maxmind.validate(ip ?? "") ? reader.get(ip) : null);
  if (kind === "hono") {
    const { Hono } = await import("hono");
    const { serve } = await import("@hono/node-server");
    const app = new Hono().get("/json", (c) => c.json(lookup(c.req.query("ip"))));
    serve({ fetch: app.fetch, port: Number(port), hostname: "127.0.0.1" });
  } else {
    let store = (_ip, body, send) => send(body);
    if (kind.startsWith("sqlite")) {
      const { default: Database } = await import("better-sqlite3");
      const db = new Database(join(mkdtempSync(join(tmpdir(), "ipatlas-bare-")), "bare.db"));
      db.pragma("journal_mode = WAL");
      db.pragma("synchronous = NORMAL");
      db.exec("CREATE TABLE conversions (id INTEGER PRIMARY KEY, ip TEXT, at INTEGER)");
      const insert = db.prepare("INSERT INTO conversions (ip, at) VALUES (?, ?)");
      if (kind === "sqlite") {
        store = (ip, body, send) => {
          insert.run(ip, Date.now());
          send(body);
        };
      } else {
        let group = [];
        const commit = db.transaction((rows) => {
          for (const row of rows) insert.run(row.ip, Date.now());
        });
        store = (ip, body, send) => {
          if (group.length === 0)
            setImmediate(() => {
              const rows = group;
              group = [];
              commit(rows);
              for (const row of rows) row.send(row.body);
            });
          group.push({ ip, body, send });
        };
      }
    }
    createServer((req, res) => {
      const ip = new URL(req.url ?? "/", "http://x").searchParams.get("ip");
      store(ip, JSON.stringify(lookup(ip)), (body) => {
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
        res.end(body);
      });
    }).listen({ port: Number(port), host: "127.0.0.1", reusePort: threads });
  }
  process.on("SIGTERM", () => process.exit(0));
}
