/**
 * A seeded fuzz over every endpoint: methods, paths, queries, headers and bodies drawn from what
 * breaks parsers (wrong types, deep or cut-off JSON, odd encodings, prototype keys, huge numbers,
 * odd Host and request targets, bad chunking, control bytes), plus valid requests so the deep
 * paths are reached too. Nothing may answer 500 or above, and every answer is the envelope except
 * the ones that are not errors and have their own format (ALLOWED_OUTSIDE below).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.js";
import { envelopeProblem, inParallel, rawRequest, type RawAnswer } from "../helpers/raw-http.js";

const SEED = 20261123;
const REQUESTS = 2_400;
const ADMIN_TOKEN = "abuse-suite-admin-token-0123456789";

/**
 * Answers that are not the envelope, by design: files (the widget, its demo, flags, the dashboard),
 * bodiless answers (HEAD, 204 preflights, 304, the dashboard's trailing-slash redirect). Every
 * one of them still carries x-request-id. Node's HTTP parser answers nothing itself any more:
 * what it refuses goes through the clientError handler, which answers with the envelope.
 */
const FILE_ROUTE = /^\/(widget\.js|widget\/[0-9a-f]{16}\.js|widget\/demo(\.css)?|flags\/[^/]+|dashboard(\/.*)?)(\?.*)?$/;

function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let server: TestServer;
let secretKey: string;
let publicKey: string;
let projectId: string;
let cookie = "";
let csrf = "";

beforeAll(async () => {
  server = await startServer({
    env: {
      IPATLAS_ADMIN_TOKEN: ADMIN_TOKEN,
      IPATLAS_TRUST_PROXY: "1",
      IPATLAS_PUBLIC_RATE_LIMIT: "1000000",
      // a body shorter than its Content-Length waits for the request timeout: 408 after 3 s
      IPATLAS_HEADERS_TIMEOUT_MS: "2000",
      IPATLAS_REQUEST_TIMEOUT_MS: "3000",
    },
  });
  const created = await server.cli("project", "create", "--name", "fuzz", "--plan", "scale");
  secretKey = created.secretKey;
  projectId = created.project.id;
  publicKey = (await server.cli("website", "add", "--project", projectId, "--origin", "*.example.com")).publicKey;
  const session = await fetch(`${server.url}/admin/api/session`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ token: ADMIN_TOKEN }),
  });
  cookie = session.headers.get("set-cookie")!.split(";")[0]!;
  csrf = (await session.json()).data.csrfToken;
});
afterAll(() => server?.stop());

interface Case {
  text: Buffer;
  label: string;
  method: string;
  target: string;
}

function generator(random: () => number) {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const chance = (p: number) => random() < p;
  const int = (max: number) => Math.floor(random() * max);

  const ADDRESSES = ["8.8.8.8", "81.2.69.160", "2001:4860:4860::8888", "::ffff:1.2.3.4", "010.0.0.1", "1.2.3", "fe80::1%eth0",
    "10.0.0.0/8", "", " ", "localhost", "999.1.1.1", "::", "::1", "2001:db8::/32", "\u0000", "1.1.1.1\n", "%00", "a".repeat(300)];
  const ODD = ["__proto__", "constructor", "prototype", "%", "%zz", "%00", "%C0%AE", "..", "../..", "\\", "😀", "\u202E", "null",
    "-1", "1e309", "99999999999999999999", "0x10", "[]", "{}", "'", '"', "<script>", "*", "%2F", ";", "a".repeat(2_000)];
  const SELECT = ["ip", "asn.name", "location.country.code", "__proto__", "ip,type", "", "a.b.c", "constructor.prototype"];
  const ORIGINS = ["https://app.example.com", "https://example.com", "null", "https://app.example.com/", "https://user@app.example.com",
    "https://app%2eexample.com", "https://app.example.com:0443", "https://.example.com", "javascript:alert(1)", "", "x".repeat(500)];
  const FORWARDED = ["1.2.3.4", "[2001:db8::1]:443", "garbage", "010.1.1.1", "1.1.1.1, 2.2.2.2", "", ",,,", "::ffff:1.2.3.4",
    "1.2.3.4:99999", "a".repeat(1_500)];
  const CONTENT_TYPES = ["application/json", "application/json; charset=utf-8", "text/plain", "application/x-www-form-urlencoded",
    "application/vnd.api+json", "multipart/form-data; boundary=x", "application/jsonx", ""];
  const IDS = [projectId, "00000000-0000-0000-0000-000000000000", "x", "%2e%2e", "__proto__", "0", "a".repeat(300)];

  const ENDPOINTS: Array<{ path: () => string; methods: string[]; body?: () => unknown; admin?: boolean }> = [
    { path: () => "/convert" + query({ ip: ADDRESSES }), methods: ["GET", "POST", "OPTIONS", "HEAD"], body: () => ({ ips: array(() => pick(ADDRESSES), 30) }) },
    { path: () => "/conversions/get" + query({ conversionId: [...IDS, "018f0000-0000-7000-8000-000000000000"], select: SELECT }), methods: ["GET", "POST"], body: () => ({ conversionIds: array(() => pick(IDS), 120) }) },
    { path: () => "/conversions/list" + query({ limit: ["1", "50", "51", "-1", "x", ""], offset: ["0", "1e3", "99999999999999999"], ipSearch: ADDRESSES, select: SELECT, status: ["success", "x"] }), methods: ["GET"] },
    { path: () => "/healthz", methods: ["GET", "HEAD"] },
    { path: () => "/admin/api/session", methods: ["GET", "POST"], body: () => ({ token: pick(["wrong", ADMIN_TOKEN.slice(0, 5), "", 5, null]) }) },
    { path: () => "/admin/api/projects", methods: ["GET", "POST"], body: () => ({ name: pick(["p", "", "a\u001b[31m", "x".repeat(200), 7, "n\u202E"]), plan: pick(["free", "scale", "gold", null]) }), admin: true },
    { path: () => `/admin/api/projects/${pick(IDS)}/plan`, methods: ["POST"], body: () => ({ plan: pick(["free", "starter", "x", 1]) }), admin: true },
    { path: () => `/admin/api/projects/${pick(IDS)}/keys`, methods: ["GET", "POST"], body: () => ({ name: pick(["k", "", "\u0007"]) }), admin: true },
    { path: () => `/admin/api/keys/${pick(IDS.slice(1))}/${pick(["roll", "revoke"])}`, methods: ["POST"], admin: true },
    { path: () => `/admin/api/projects/${pick(IDS)}/websites`, methods: ["GET", "POST"], body: () => ({ origin: pick([...ORIGINS, "*.example.net", "*.com"]) }), admin: true },
    { path: () => `/admin/api/websites/${pick(IDS.slice(1))}`, methods: ["DELETE"], admin: true },
    { path: () => `/admin/api/projects/${pick(IDS)}/conversions` + query({ offset: ["0", "x"], limit: ["10", "1000"], status: ["success", "x"], ipSearch: ADDRESSES }), methods: ["GET"], admin: true },
    { path: () => `/admin/api/projects/${pick(IDS)}/conversions/${pick(IDS)}`, methods: ["GET"], admin: true },
    { path: () => `/admin/api/projects/${pick(IDS)}/map`, methods: ["GET"], admin: true },
    { path: () => pick(["/widget.js", "/widget/0000000000000000.js", "/widget/demo", "/widget/demo.css"]) + query({ key: [publicKey, "x"], api: ORIGINS }), methods: ["GET", "HEAD"] },
    { path: () => `/flags/${pick(["us.svg", "gb.png", "xx.svg", "..%2f..%2fetc%2fpasswd", "US.SVG", "%00.svg"])}`, methods: ["GET"] },
    { path: () => pick(["/dashboard", "/dashboard/", "/dashboard/assets/x.js", "/dashboard/../admin"]), methods: ["GET"] },
    { path: () => "/" + pick(ODD), methods: ["GET", "POST"] },
  ];

  function encode(value: string): string {
    return chance(0.7) ? encodeURIComponent(value) : value.replace(/[\s#]/g, (c) => encodeURIComponent(c));
  }

  function query(params: Record<string, readonly string[]>): string {
    const parts: string[] = [];
    for (const [name, values] of Object.entries(params)) {
      if (chance(0.5)) continue;
      const value = chance(0.15) ? pick(ODD) : pick(values);
      parts.push(`${chance(0.05) ? pick(ODD) : name}=${encode(value)}`);
      if (chance(0.1)) parts.push(`${name}=${encode(pick(values))}`); // repeated
    }
    return parts.length ? `?${parts.join("&")}` : "";
  }

  function array<T>(item: () => T, max: number): T[] {
    return Array.from({ length: int(max) }, item);
  }

  function randomJson(depth: number): unknown {
    const kind = int(depth > 0 ? 8 : 5);
    if (kind === 0) return pick(ODD);
    if (kind === 1) return pick([0, -1, 1e308, Number.MAX_SAFE_INTEGER + 2, 0.5]);
    if (kind === 2) return pick([true, false, null]);
    if (kind === 3) return pick(ADDRESSES);
    if (kind === 4) return "";
    if (kind === 5) return array(() => randomJson(depth - 1), 5);
    const object: Record<string, unknown> = {};
    for (let i = int(4); i > 0; i--) object[pick([...ODD, "ips", "conversionIds", "token", "name", "origin", "plan"])] = randomJson(depth - 1);
    return object;
  }

  function bodyText(endpoint: (typeof ENDPOINTS)[number]): string {
    const roll = random();
    if (roll < 0.45 && endpoint.body) return JSON.stringify(endpoint.body());
    if (roll < 0.65) return JSON.stringify(randomJson(3));
    if (roll < 0.72) return "[".repeat(40) + "]".repeat(40);
    if (roll < 0.8) return JSON.stringify(endpoint.body?.() ?? {}).slice(0, -2);
    if (roll < 0.85) return "\uFEFF" + JSON.stringify(endpoint.body?.() ?? {});
    if (roll < 0.9) return `{"ips":${JSON.stringify(Array.from({ length: 5_001 }, () => "1.1.1.1"))}}`;
    return pick(ODD);
  }

  /** request-level oddities the app never sees whole: each is answered before or around it */
  const RAW = [
    () => `GET /convert\\x HTTP/1.1\r\nHost: x\r\n`,
    () => `GET /healthz HTTP/1.1\r\nHost: ${pick(["a b", "evil.com/x", "a@b", "[::1", "", "x:99999", "\u00e9"])}\r\n`,
    () => `GET /healthz HTTP/1.1\r\n`,
    () => `GET ${pick(["ftp://x/healthz", "http://evil.com/healthz", "https://x/convert?ip=1.1.1.1", "*", "healthz", "//healthz"])} HTTP/1.1\r\nHost: x\r\n`,
    () => `OPTIONS * HTTP/1.1\r\nHost: x\r\n`,
    () => `GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: ${pick(["200-ok", "100-continue", "x"])}\r\n`,
    () => `GET /healthz HTTP/1.0\r\n`,
    () => `GET /healthz HTTP/${pick(["2.0", "1.2", "0.9", "9.9"])}\r\nHost: x\r\n`,
    () => `${pick(["BREW", "PRI", "G\u0000T", "get", "CONNECT", "TRACE"])} ${pick(["/healthz", "127.0.0.1:443"])} HTTP/1.1\r\nHost: x\r\n`,
    () => `GET /healthz HTTP/1.1\r\nHost: x\r\nx-bad: a\u0001b\r\n`,
    () => `GET /healthz HTTP/1.1\r\nHost: x\r\nx-big: ${"a".repeat(17_000)}\r\n`,
    () => `POST /convert HTTP/1.1\r\nHost: x\r\nx-api-key: ${secretKey}\r\nContent-Type: application/json\r\nContent-Length: 5\r\nContent-Length: 6\r\n`,
    () => `POST /convert HTTP/1.1\r\nHost: x\r\nx-api-key: ${secretKey}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n`,
    () => `PRI * HTTP/2.0\r\n\r\nSM\r\n`,
    () => "\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u0001\u00fc\u0003\u0003",
  ];

  return function next(n: number): Case {
    if (chance(0.12)) {
      const head = pick(RAW)();
      const text = head.endsWith("\r\n") ? `${head}Connection: close\r\n\r\n` : head;
      return { text: Buffer.from(text, "latin1"), label: `raw ${n}: ${JSON.stringify(text.slice(0, 80))}`, method: text.split(" ")[0]!, target: text.split(" ")[1] ?? "" };
    }
    const endpoint = pick(ENDPOINTS);
    const method = chance(0.08) ? pick(["PUT", "PATCH", "DELETE", "TRACE", "PROPFIND", "HEAD", "OPTIONS"]) : pick(endpoint.methods);
    const target = endpoint.path();
    const headers: string[] = ["Host: 127.0.0.1", "Connection: close"];
    const key = random();
    if (key < 0.5) headers.push(`x-api-key: ${secretKey}`);
    else if (key < 0.7) headers.push(`x-api-key: ${publicKey}`);
    else if (key < 0.8) headers.push(`x-api-key: ${pick(["ipa_sk_x", "ipa_pk_", "", "x".repeat(600), "ipa_sk_" + "\u00e9"])}`);
    if (chance(0.4)) headers.push(`Origin: ${pick(ORIGINS)}`);
    if (chance(0.2)) headers.push(`X-Forwarded-For: ${pick(FORWARDED)}`);
    if (endpoint.admin || chance(0.1)) {
      if (chance(0.85)) headers.push(`Cookie: ${cookie}`);
      if (chance(0.85)) headers.push(`x-csrf-token: ${chance(0.9) ? csrf : "x"}`);
    }
    if (chance(0.05)) headers.push(`Accept-Encoding: ${pick(["gzip", "br", "*", "x"])}`);
    if (chance(0.05)) headers.push(`If-None-Match: ${pick(['"x"', "*", "W/\"0000000000000000\""])}`);
    let body = "";
    if (method !== "GET" && method !== "HEAD" && (chance(0.9) || method === "POST")) {
      body = bodyText(endpoint);
      headers.push(`Content-Type: ${chance(0.8) ? "application/json" : pick(CONTENT_TYPES)}`);
    }
    const bytes = Buffer.from(body, "utf8");
    let text: Buffer;
    if (body && chance(0.15)) {
      // chunked, sometimes with a broken chunk
      const broken = chance(0.3);
      const chunk = `${broken ? "zz" : bytes.length.toString(16)}\r\n`;
      text = Buffer.concat([Buffer.from(`${method} ${target} HTTP/1.1\r\n${headers.join("\r\n")}\r\nTransfer-Encoding: chunked\r\n\r\n${chunk}`), bytes, Buffer.from("\r\n0\r\n\r\n")]);
    } else {
      const declared = body && chance(0.05) ? bytes.length + int(50) - 25 : bytes.length;
      text = Buffer.concat([Buffer.from(`${method} ${target} HTTP/1.1\r\n${headers.join("\r\n")}\r\nContent-Length: ${Math.max(0, declared)}\r\n\r\n`), bytes]);
    }
    return { text, label: `${n}: ${method} ${target.slice(0, 120)}`, method, target };
  };
}

/** Why `answer` to `request` breaks the rules; null when it does not. */
function problem(request: Case, answer: RawAnswer | null): string | null {
  if (!answer) return "no answer";
  if (answer.status >= 500) return `status ${answer.status}`;
  if (!answer.headers["x-request-id"]) return `no x-request-id (status ${answer.status})`;
  const bodiless = request.method === "HEAD" || answer.status === 204 || answer.status === 304 || (answer.status >= 300 && answer.status < 400);
  if (bodiless) return null;
  if (answer.status < 300 && FILE_ROUTE.test(request.target)) return null;
  return envelopeProblem(answer);
}

describe("seeded fuzz over every endpoint", () => {
  it(`${REQUESTS} requests: none answers 500 or above, every error is the envelope`, async () => {
    const next = generator(mulberry32(SEED));
    const cases = Array.from({ length: REQUESTS }, (_, n) => next(n));
    const problems: string[] = [];
    const statuses = new Map<number, number>();
    const started = performance.now();
    await inParallel(cases.length, 8, async (i) => {
      const request = cases[i]!;
      const answer = await rawRequest({ port: server.port, timeoutMs: 10_000 }, request.text);
      if (answer) statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      const found = problem(request, answer);
      if (found) problems.push(`${request.label} → ${found}`);
    });
    const summary = [...statuses].sort(([a], [b]) => a - b).map(([status, count]) => `${status}×${count}`).join(" ");
    console.log(`fuzz: ${cases.length} requests in ${Math.round(performance.now() - started)} ms (seed ${SEED}); ${summary}; problems ${problems.length}`);
    expect(problems.slice(0, 20)).toEqual([]);
    expect(await fetch(`${server.url}/healthz`).then((r) => r.status)).toBe(200);
  }, 120_000);
});
