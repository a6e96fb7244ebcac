/**
 * The first seconds after `ipatlas serve` is ready, as a client of its own measures them: a fresh
 * server (fresh data dir, `scale` project), then at once 50 keep-alive connections on loopback
 * asking for random public IPv4 addresses, in consecutive windows, each request's latency kept.
 * Once for GET /bench/lookup, then on another fresh server for GET /convert (stored).
 *
 * side-by-side.sh measures the same load with wrk, whose two threads share the two cores with the
 * server and V8's background threads, so a starved wrk thread reads its answers late. This client
 * runs on one thread and is less busy: its figures come closer to how long the server held each
 * request (docs/performance.md, 2026-11-29). Figures only; the target stays side-by-side.sh's.
 *
 *   npx tsx bench/first-seconds.ts [--windows 4] [--seconds 2] [--connections 50]
 *
 * The servers inherit this process's environment: IPATLAS_CITY_DB=<a GeoLite2-City file> measures
 * on the data side-by-side.sh uses.
 */
import { once } from "node:events";
import { connect } from "node:net";
import { parseArgs } from "node:util";
import { randomPublicIpv4 } from "../test/helpers/random-addresses.js";
import { startServer } from "../test/helpers/server.js";
import { roundTrip } from "../server/warm-up.js";
import { percentile } from "./_percentile.js";

const { values } = parseArgs({
  options: {
    windows: { type: "string", default: "4" },
    seconds: { type: "string", default: "2" },
    connections: { type: "string", default: "50" },
  },
});
const windows = Number(values.windows);
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const pool = randomPublicIpv4(100_000, 29);

interface Window {
  latencies: number[];
  /** when the slowest request of the window was sent, ms from the first */
  slowestSentAt: number;
  slowest: number;
}

/**
 * `connections` sockets, each sending its next request when the last answer is complete, until
 * `windows` × `seconds` have passed; a request's latency goes to the window it was sent in.
 */
async function load(port: number, key: string, path: string): Promise<Window[]> {
  const startedAt = performance.now();
  const spanMs = seconds * 1000;
  const endsAt = startedAt + windows * spanMs;
  const result: Window[] = Array.from({ length: windows }, () => ({ latencies: [], slowestSentAt: 0, slowest: 0 }));
  let next = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      const socket = connect(port, "127.0.0.1");
      socket.setNoDelay(true);
      try {
        await once(socket, "connect");
        while (performance.now() < endsAt) {
          const ip = pool[next++ % pool.length]!;
          const sentAt = performance.now();
          const status = await roundTrip(socket, `GET ${path}${ip} HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${key}\r\n\r\n`);
          if (status !== 200) throw new Error(`${path}${ip} answered ${status}`);
          const latency = performance.now() - sentAt;
          const into = result[Math.min(windows - 1, Math.floor((sentAt - startedAt) / spanMs))]!;
          into.latencies.push(latency);
          if (latency > into.slowest) {
            into.slowest = latency;
            into.slowestSentAt = sentAt - startedAt;
          }
        }
      } finally {
        socket.destroy();
      }
    }),
  );
  return result;
}

for (const [name, path] of [
  ["GET /bench/lookup", "/bench/lookup?ip="],
  ["GET /convert (stored)", "/convert?ip="],
] as const) {
  const server = await startServer({ env: { IPATLAS_BENCH_ROUTES: "1" } });
  try {
    const { secretKey } = await server.cli("project", "create", "--name", "first-seconds", "--plan", "scale");
    const result = await load(server.port, secretKey, path);
    console.log(`${name}, ${connections} connections from ready (this client's latencies):`);
    result.forEach(({ latencies, slowest, slowestSentAt }, i) => {
      const span = `${i * seconds}-${(i + 1) * seconds} s`;
      console.log(
        `  ${span.padEnd(8)} ${String(Math.round(latencies.length / seconds)).padStart(6)} req/s  p50 ${percentile(latencies, 50).toFixed(1)} ms  p99 ${percentile(latencies, 99).toFixed(1)} ms  max ${slowest.toFixed(1)} ms (sent at ${Math.round(slowestSentAt)} ms)`,
      );
    });
  } finally {
    await server.stop();
  }
}
