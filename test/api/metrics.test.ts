/**
 * /metrics: scraped from the real server and parsed as Prometheus text. Off by default; on the API
 * port or its own port with a token; aggregated over the servers of `serve --workers 2` and
 * `--threads 2`.
 */
import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { randomPublicIpv4 } from "../helpers/random-addresses.js";
import { startServer, type TestServer } from "../helpers/server.js";

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The text exposition format: `# HELP`/`# TYPE` comments, then `name{label="value",…} number`. */
function parseMetrics(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types.set(type[1]!, type[2]!);
    if (line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[key!] = value!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return { samples, types };
}

const sum = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((total, s) => total + s.value, 0);

async function scrape(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers });
  if (response.status !== 200) throw new Error(`scrape answered ${response.status}: ${await response.text()}`);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseMetrics(await response.text());
}

describe("metrics", () => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
  });
  const start = async (...args: Parameters<typeof startServer>) => {
    const server = await startServer(...args);
    servers.push(server);
    return server;
  };

  it("are off unless enabled", async () => {
    const server = await start({ timeoutMs: 90_000 });
    expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
  }, 120_000);

  it("count requests by route and status, conversions, refusals, group commits; time them; report databases and the event loop", async () => {
    const server = await start({ env: { IPATLAS_METRICS: "1" }, timeoutMs: 90_000 });
    const key = (await server.cli("project", "create", "--name", "m", "--plan", "growth")).secretKey;
    const freeKey = (await server.cli("project", "create", "--name", "f", "--plan", "free")).secretKey;
    const convert = (ip: string, k = key) => fetch(`${server.url}/convert?ip=${ip}`, { headers: { "x-api-key": k } });
    for (const ip of ["8.8.8.8", "1.1.1.1", "nope"]) await (await convert(ip)).arrayBuffer();
    await (await fetch(`${server.url}/convert`)).arrayBuffer(); // 401
    const bulk = (ips: string[], k = key) => fetch(`${server.url}/convert`, { method: "POST", headers: { "x-api-key": k, "content-type": "application/json" }, body: JSON.stringify({ ips }) });
    expect((await bulk(["8.8.8.8", "9.9.9.9"])).status).toBe(200);
    expect((await bulk(Array(1001).fill("8.8.8.8"), freeKey)).status).toBe(429);
    await (await fetch(`${server.url}/conversions/get?conversionId=0193a1c2-7f5e-7b8a-9c3d-4e5f60718293`, { headers: { "x-api-key": key } })).arrayBuffer();
    await (await fetch(`${server.url}/no/such/page`)).arrayBuffer();

    const { samples, types } = await scrape(`${server.url}/metrics`);
    expect(sum(samples, "ipatlas_http_requests_total", { method: "GET", route: "/convert", status: "200" })).toBe(2);
    expect(sum(samples, "ipatlas_http_requests_total", { method: "GET", route: "/convert", status: "400" })).toBe(1);
    expect(sum(samples, "ipatlas_http_requests_total", { method: "GET", route: "/convert", status: "401" })).toBe(1);
    expect(sum(samples, "ipatlas_http_requests_total", { method: "POST", route: "/convert", status: "429" })).toBe(1);
    expect(sum(samples, "ipatlas_http_requests_total", { route: "/conversions/get", status: "200" })).toBe(1);
    expect(sum(samples, "ipatlas_http_requests_total", { route: "unmatched", status: "404" })).toBe(1);
    // labels are route patterns: no raw paths or query strings
    expect(samples.filter((s) => s.name === "ipatlas_http_requests_total").every((s) => !s.labels.route!.includes("?") && !s.labels.route!.includes("no/such"))).toBe(true);
    expect(types.get("ipatlas_http_request_duration_seconds")).toBe("histogram");
    expect(sum(samples, "ipatlas_http_request_duration_seconds_count", { method: "GET", route: "/convert" })).toBe(4);
    expect(sum(samples, "ipatlas_http_request_duration_seconds_bucket", { method: "GET", route: "/convert", le: "+Inf" })).toBe(4);
    // 3 GET conversions (the invalid one is stored too) + 2 bulk; the refused 1001 store nothing
    expect(sum(samples, "ipatlas_conversions_stored_total")).toBe(5);
    expect(sum(samples, "ipatlas_refusals_total", { reason: "quota" })).toBe(1);
    expect(sum(samples, "ipatlas_refusals_total", { reason: "rate_limit" })).toBe(0);
    expect(sum(samples, "ipatlas_group_commit_requests_count")).toBeGreaterThanOrEqual(1);
    expect(sum(samples, "ipatlas_group_commit_rows_sum")).toBeGreaterThanOrEqual(5);
    // one duration per group written, and a write takes some time
    expect(sum(samples, "ipatlas_group_commit_duration_seconds_count")).toBe(sum(samples, "ipatlas_group_commit_requests_count"));
    expect(sum(samples, "ipatlas_group_commit_duration_seconds_sum")).toBeGreaterThan(0);
    expect(sum(samples, "ipatlas_http_open_connections")).toBeGreaterThanOrEqual(1);
    const city = samples.find((s) => s.name === "ipatlas_geo_database_build_age_seconds" && s.labels.name === "city");
    expect(city?.value).toBeGreaterThan(0);
    expect(samples.some((s) => s.name === "ipatlas_nodejs_eventloop_lag_seconds")).toBe(true);
  }, 120_000);

  it("report what the bounded queues hold, and count bulks refused as busy", async () => {
    const server = await start({ env: { IPATLAS_METRICS: "1" }, timeoutMs: 90_000 });
    const key = (await server.cli("project", "create", "--name", "q", "--plan", "scale")).secretKey;
    const gauges = async () => {
      const { samples } = await scrape(`${server.url}/metrics`);
      return {
        waiting: sum(samples, "ipatlas_bulk_admission_waiting"),
        runningBytes: sum(samples, "ipatlas_bulk_admission_running_bytes"),
        writeRows: sum(samples, "ipatlas_storage_write_rows_waiting"),
        lists: sum(samples, "ipatlas_storage_lists_waiting"),
        busy: sum(samples, "ipatlas_refusals_total", { reason: "busy" }),
      };
    };
    expect(await gauges()).toEqual({ waiting: 0, runningBytes: 0, writeRows: 0, lists: 0, busy: 0 });
    // eight full bulks of one key at once: one runs, up to four (a key's share of the queue) wait, the rest get 503
    const body = JSON.stringify({ ips: randomPublicIpv4(5000) });
    const bulks = Array.from({ length: 8 }, () =>
      fetch(`${server.url}/convert`, { method: "POST", headers: { "x-api-key": key, "content-type": "application/json" }, body }).then(async (r) => (await r.arrayBuffer(), r.status)),
    );
    let settled = false;
    void Promise.all(bulks).finally(() => (settled = true));
    let most = { waiting: 0, runningBytes: 0 };
    while (!settled) {
      const now = await gauges();
      most = { waiting: Math.max(most.waiting, now.waiting), runningBytes: Math.max(most.runningBytes, now.runningBytes) };
    }
    const statuses = await Promise.all(bulks);
    expect(statuses.every((status) => status === 200 || status === 503)).toBe(true);
    expect(statuses.filter((status) => status === 503).length).toBeGreaterThan(0);
    expect(most.waiting).toBeGreaterThan(0);
    expect(most.runningBytes).toBeGreaterThanOrEqual(body.length);
    const after = await gauges();
    expect(after).toEqual({ waiting: 0, runningBytes: 0, writeRows: 0, lists: 0, busy: statuses.filter((status) => status === 503).length });
  }, 120_000);

  it("on their own port behind a bearer token", async () => {
    const server = await start({ env: { IPATLAS_METRICS_PORT: "0", IPATLAS_METRICS_TOKEN: "s3cret" }, args: ["--metrics"], timeoutMs: 90_000 });
    const url = /IP Atlas metrics on (http:\/\/\S+\/metrics)/.exec(server.output())![1]!;
    expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: "Bearer wrong!" } })).status).toBe(401);
    const { samples } = await scrape(url, { authorization: "Bearer s3cret" });
    expect(samples.some((s) => s.name === "ipatlas_http_requests_total" || s.name === "ipatlas_conversions_stored_total")).toBe(true);
  }, 120_000);

  it.each([
    { flag: "--workers", servers: "workers" },
    { flag: "--threads", servers: "threads" },
  ])("summed over the $servers of serve $flag 2 by the primary", async ({ flag, servers }) => {
    const server = await start({ args: [flag, "2", "--metrics", "--metrics-port", "0"], timeoutMs: 90_000 });
    const url = new RegExp(`IP Atlas metrics \\(all ${servers}\\) on (http://\\S+/metrics)`).exec(server.output())![1]!;
    // fresh connections, so the kernel spreads them over both servers
    for (let i = 0; i < 20; i++) await (await fetch(`${server.url}/healthz`, { headers: { connection: "close" } })).arrayBuffer();
    const { samples } = await scrape(url);
    expect(sum(samples, "ipatlas_http_requests_total", { route: "/healthz", status: "200" })).toBe(20);
    // one process_start per worker would be summed; the aggregator keeps per-worker gauges meaningful
    expect(samples.some((s) => s.name === "ipatlas_nodejs_eventloop_lag_seconds")).toBe(true);
    if (flag !== "--threads") return;
    // the process's own figures once: its threads each read the same whole-process memory
    const rss = Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${server.process.pid}/status`, "utf8"))![1]) * 1024;
    const reported = sum(samples, "ipatlas_process_resident_memory_bytes");
    expect(reported / rss).toBeGreaterThan(0.8);
    expect(reported / rss).toBeLessThan(1.25);
  }, 120_000);
});
