/**
 * Issue #6: GET /convert (stored) over HTTP with one and with two servers on one database:
 * PostgreSQL (fresh schema, dropped afterwards) when DATABASE_URL or TEST_DATABASE_URL is set,
 * else SQLite (two servers on one data dir). With two servers the connections are
 * split between them, as a load balancer would; both runs use the same total.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/servers.ts [--seconds 10] [--connections 32]
 *   npx tsx bench/servers.ts --backend sqlite
 *
 * On a machine with few cores the two servers compete with each other and with PostgreSQL for
 * the same CPUs, so the figure shows correctness under load more than scaling.
 */
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { randomPublicIpv4 } from "../test/helpers/random-addresses.js";
import { startServer, type TestServer } from "../test/helpers/server.js";
import { defaultBackend, openBenchBackend } from "./_backend.js";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "10" },
    connections: { type: "string", default: "32" },
    backend: { type: "string", default: defaultBackend },
  },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const backend = await openBenchBackend(values.backend);

const pool = randomPublicIpv4(10_000);

async function cannon(server: TestServer, key: string, conns: number) {
  const result = await autocannon({
    url: server.url,
    connections: conns,
    duration: seconds,
    headers: { "x-api-key": key },
    requests: [{ setupRequest: (req: Record<string, unknown>) => ({ ...req, path: `/convert?ip=${pool[Math.floor(Math.random() * pool.length)]}` }) }],
  });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${result.non2xx} non-2xx, ${result.errors} errors`);
  return result;
}

const servers: TestServer[] = [];
try {
  servers.push(await startServer({ env: backend.env }));
  servers.push(await startServer({ env: backend.env, dataDir: servers[0]!.dataDir }));
  const { secretKey } = await servers[0]!.cli("project", "create", "--name", "scale", "--plan", "scale");
  console.log(`GET /convert (stored) on ${backend.name}, ${connections} connections in total, ${seconds} s per run`);
  await cannon(servers[0]!, secretKey, connections); // warm-up
  for (const count of [1, 2]) {
    const results = await Promise.all(servers.slice(0, count).map((s) => cannon(s, secretKey, Math.ceil(connections / count))));
    const rps = results.reduce((sum, r) => sum + r.requests.average, 0);
    const p99 = Math.max(...results.map((r) => r.latency.p99));
    console.log(`  ${count} server${count > 1 ? "s" : " "}: ${rps.toFixed(0)} req/s, p99 ${p99} ms`);
  }
} finally {
  for (const server of servers.reverse()) await server.stop();
  await backend.dispose();
}
