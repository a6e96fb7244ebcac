import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../config.js";
import { createLogger } from "../logger.js";
import { startServer, type RunningServer } from "../serve.js";

const CITY = join(import.meta.dirname, "../../test/fixtures/maxmind/GeoIP2-City-Test.mmdb");

let dir: string;
let server: RunningServer;
let secretKey: string;
let publicKey: string;
const logged: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ipatlas-fast-get-"));
  const env = { IPATLAS_DATA_DIR: dir, IPATLAS_CITY_DB: CITY, IPATLAS_BENCH_ROUTES: "1", IPATLAS_LOG_LEVEL: "info" };
  const config = loadConfig({ ...env, IPATLAS_PORT: "0", IPATLAS_HOST: "127.0.0.1" });
  const log = createLogger("info", (line) => logged.push(JSON.parse(line)));
  server = await startServer(config, env, () => {}, log);
  const created = await server.deps.services.createProject({ name: "p", plan: "free" });
  secretKey = created.secretKey;
  publicKey = (await server.deps.services.addWebsite({ projectId: created.project.id, origin: "https://shop.example" })).publicKey;
}, 60_000);
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** status, headers and body, with what differs per request (ids, times, dates) blanked */
async function answer(path: string, headers: Record<string, string>) {
  const res = await fetch(server.url + path, { headers });
  const body = await res.json();
  body._req = { reqId: typeof body._req.reqId, resTime: typeof body._req.resTime };
  if (body.data?.completion_time) body.data.completion_time = "…";
  // the two requests may fall on either side of a second
  const timezone = body.data?.continent?.country?.city?.timezone;
  if (timezone?.time_now) timezone.time_now = "…";
  const shown: Record<string, string> = {};
  for (const [name, value] of res.headers) {
    // content-length: resTime and completion_time have as many digits as they happen to have
    if (["date", "x-request-id", "x-conversion-id", "keep-alive", "connection", "content-length"].includes(name)) shown[name] = "…";
    else shown[name] = name === "x-ratelimit-remaining" ? "…" : value;
  }
  return { status: res.status, headers: shown, body };
}

/** the same request answered by the fast path and, with a parameter that sends it to Hono, by the app */
async function bothPaths(path: string, headers: Record<string, string> = {}) {
  const before = server.fastGet.answered;
  const fast = await answer(path, { "x-api-key": secretKey, ...headers });
  const taken = server.fastGet.answered - before;
  // lang=en changes nothing in the answer and takes the Hono route
  const viaHono = await answer(`${path}${path.includes("?") ? "&" : "?"}lang=en`, { "x-api-key": secretKey, ...headers });
  expect(server.fastGet.answered - before).toBe(taken);
  return { fast, viaHono, taken };
}

describe("the fast GET path", () => {
  it.each([
    ["/convert?ip=81.2.69.160", 200],
    ["/convert?ip=2001:480::1", 200],
    ["/convert?ip=10.0.0.1", 200],
    ["/convert?ip=not.an.address", 400],
    ["/convert?ip=", 200],
    ["/convert", 200],
    ["/bench/lookup?ip=81.2.69.160", 200],
    ["/bench/lookup?ip=999.1.1.1", 400],
  ])("answers %s like the Hono route (%i)", async (path, status) => {
    const { fast, viaHono, taken } = await bothPaths(path);
    expect(taken).toBe(1);
    expect(fast.status).toBe(status);
    expect(fast).toEqual(viaHono);
  });

  it("answers in the language Accept-Language asks for, like the Hono route", async () => {
    const fast = await answer("/convert?ip=81.2.69.160", { "x-api-key": secretKey, "accept-language": "de-CH, de;q=0.9" });
    // an empty lang= leaves the choice to Accept-Language, and takes the Hono route
    const viaHono = await answer("/convert?ip=81.2.69.160&lang=", { "x-api-key": secretKey, "accept-language": "de-CH, de;q=0.9" });
    expect(fast.headers["content-language"]).toBe("de-CH");
    expect(fast).toEqual(viaHono);
    expect(fast.body.data.continent.name).toBe("Europa");
  });

  it("stores and counts what it answers, with the quota headers", async () => {
    const { fast } = await bothPaths("/convert?ip=81.2.69.160");
    expect(fast.headers["x-ratelimit-limit"]).toBe("1000");
    const res = await fetch(`${server.url}/convert?ip=81.2.69.160`, { headers: { "x-api-key": secretKey } });
    const id = res.headers.get("x-conversion-id");
    const stored = await fetch(`${server.url}/conversions/get?conversionId=${id}`, { headers: { "x-api-key": secretKey } });
    expect(((await stored.json()) as { data: { data: { ip: string } } }).data.data.ip).toBe("81.2.69.160");
  });

  it("leaves everything that is not plain to the app", async () => {
    const before = server.fastGet.answered;
    const refused = [
      await fetch(`${server.url}/convert?ip=81.2.69.160`, { headers: { "x-api-key": "ipa_sk_" + "x".repeat(32) } }),
      await fetch(`${server.url}/convert?ip=81.2.69.160`),
      await fetch(`${server.url}/convert?ip=81.2.69.160`, { headers: { "x-api-key": publicKey, origin: "https://shop.example" } }),
      await fetch(`${server.url}/convert?ip=81.2.69.160&lang=de`, { headers: { "x-api-key": secretKey } }),
      await fetch(`${server.url}/convert?ip=81%2E2.69.160`, { headers: { "x-api-key": secretKey } }),
      await fetch(`${server.url}/convert?ip=81.2.69.160`, { method: "HEAD", headers: { "x-api-key": secretKey } }),
    ];
    expect(refused.map((res) => res.status)).toEqual([401, 401, 200, 200, 200, 200]);
    expect(server.fastGet.answered).toBe(before);
  });

  it("writes the access log line the middleware writes", async () => {
    logged.length = 0;
    await bothPaths("/convert?ip=81.2.69.160");
    const lines = logged.filter((line) => line.msg === "request");
    expect(lines).toHaveLength(2);
    const [fast, viaHono] = lines.map(({ reqId, durationMs, time, bytesOut, ...rest }): Record<string, unknown> => ({ ...rest, reqId: typeof reqId, durationMs: typeof durationMs }));
    expect(fast).toEqual(viaHono);
    expect(fast).toMatchObject({ method: "GET", route: "/convert", status: 200, clientIp: "127.0.0.1", bytesIn: null });
    // the same answer, but for the digits resTime and completion_time happen to have
    const [fastBytes, honoBytes] = lines.map((line) => line.bytesOut as number);
    expect(fastBytes).toBeGreaterThan(500);
    expect(Math.abs(fastBytes! - honoBytes!)).toBeLessThan(12);
  });
});
