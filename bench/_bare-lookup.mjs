// Started by bench/ceiling.ts: the least a Node server can do for echoip's answer, to measure what
// Node itself reaches on this machine. GET /json?ip=A answers the GeoLite2 record of A as JSON;
// nothing else (no key, no envelope, no log).
//
//   node bench/_bare-lookup.mjs PORT CITY_MMDB http|hono|sqlite|sqlite-group [WORKERS]
//
// `http`: node:http and JSON.stringify; `hono`: a Hono route on @hono/node-server with c.json;
// `sqlite`: as `http`, and each address first inserted as a row of its own (one autocommit INSERT
// into a fresh SQLite file, WAL, synchronous=NORMAL as IP Atlas opens it; the address and the
// time only, a row smaller than IP Atlas's ~140 bytes, so the ceiling is generous); `sqlite-group`: the
// answers of one event-loop turn inserted in one transaction, each sent after its commit (group
// commit, as IP Atlas writes). WORKERS > 1 runs that many node:cluster processes on the port.
import cluster from "node:cluster";
import { mkdtempSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import maxmind from "maxmind";

const [port, city, kind, workers = "1"] = process.argv.slice(2);

if (Number(workers) > 1 && cluster.isPrimary) {
  for (let i = 0; i < Number(workers); i++) cluster.fork();
  process.on("SIGTERM", () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.kill("SIGTERM");
    process.exit(0);
  });
} else {
  // the cache IP Atlas gives its own reader (server/geo/sources)
  const reader = await maxmind.open(city, { cache: { max: 20_000 } });
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
    }).listen(Number(port), "127.0.0.1");
  }
  process.on("SIGTERM", () => process.exit(0));
}
