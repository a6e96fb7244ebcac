/**
 * The admin API over HTTP against the real server: auth on every route, sign-in with its growing
 * delay, CSRF and origin checks on mutations, validation messages, and the operations themselves
 * (the same services as the CLI, so CLI changes show here too).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_MESSAGES, CSRF_HEADER, SESSION_COOKIE } from "../../lib/schemas/admin.js";
import { MESSAGES } from "../../lib/schemas/messages.js";
import { backendNames, createBackend, type Backend } from "../helpers/backends.js";
import { startServer, type TestServer } from "../helpers/server.js";

const TOKEN = "test-admin-token-0123456789";
let server: TestServer;

interface Answer {
  status: number;
  body: { success: boolean; message: string; code: number; data: any; _req: { reqId: string } };
  headers: Headers;
}

/** a signed-in browser session: the cookie and the CSRF token */
interface Session {
  cookie: string;
  csrf: string;
}

async function call(method: string, path: string, options: { session?: Session; json?: unknown; headers?: Record<string, string>; csrf?: string | null } = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.session) headers.cookie = options.session.cookie;
  const csrf = options.csrf === undefined ? options.session?.csrf : options.csrf;
  if (csrf) headers[CSRF_HEADER] = csrf;
  if (options.json !== undefined) headers["content-type"] ??= "application/json";
  const res = await fetch(`${server.url}/admin/api${path}`, {
    method,
    headers,
    body: options.json === undefined ? undefined : typeof options.json === "string" ? options.json : JSON.stringify(options.json),
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

async function signIn(): Promise<Session> {
  const res = await call("POST", "/session", { json: { token: TOKEN } });
  expect(res.status).toBe(200);
  const setCookie = res.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`))!;
  return { cookie: setCookie.split(";")[0]!, csrf: res.body.data.csrfToken };
}

function expectError(res: Answer, status: number, message: string) {
  expect({ status: res.status, message: res.body.message }).toEqual({ status, message });
  expect(res.body).toMatchObject({ success: false, code: status, data: null });
  expect(typeof res.body._req.reqId).toBe("string");
}

describe.each(backendNames)("admin API on %s", (backendName) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await createBackend(backendName);
    server = await startServer({ env: { ...backend.env, IPATLAS_ADMIN_TOKEN: TOKEN } });
  });
  afterAll(async () => {
    await server?.stop();
    await backend?.dispose();
  });

  describe("authentication", () => {
    it("refuses every route without a session, unknown ones included", async () => {
      const routes: Array<[string, string]> = [
        ["GET", "/session"],
        ["DELETE", "/session"],
        ["GET", "/projects"],
        ["POST", "/projects"],
        ["POST", "/projects/x/plan"],
        ["GET", "/projects/x/keys"],
        ["POST", "/projects/x/keys"],
        ["POST", "/keys/x/roll"],
        ["POST", "/keys/x/revoke"],
        ["GET", "/projects/x/websites"],
        ["POST", "/projects/x/websites"],
        ["DELETE", "/websites/x"],
        ["GET", "/projects/x/conversions"],
        ["GET", "/projects/x/conversions/00000000-0000-4000-8000-000000000000"],
        ["GET", "/projects/x/map"],
        ["GET", "/no-such-route"],
      ];
      for (const [method, path] of routes) {
        const res = await call(method, path, method === "POST" ? { json: {} } : {});
        expect(`${method} ${path} ${res.status} ${res.body.message}`).toBe(`${method} ${path} 401 ${ADMIN_MESSAGES.signInRequired}`);
      }
      const forged = await call("GET", "/projects", { headers: { cookie: `${SESSION_COOKIE}=forged` } });
      expectError(forged, 401, ADMIN_MESSAGES.signInRequired);
    });

    it("answers a wrong token with a clear message, more slowly each time", async () => {
      const timings: number[] = [];
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        const res = await call("POST", "/session", { json: { token: `wrong-${i}` } });
        timings.push(performance.now() - started);
        expectError(res, 401, ADMIN_MESSAGES.invalidToken);
        expect(res.headers.getSetCookie()).toEqual([]);
      }
      // 250 ms, 500 ms, 1000 ms by default: lower bounds only, since a busy machine can only add
      // time (the exact sequence is pinned in server/admin/sign-in-throttle.test.ts)
      expect(timings[0]!).toBeGreaterThanOrEqual(240);
      expect(timings[1]!).toBeGreaterThanOrEqual(490);
      expect(timings[2]!).toBeGreaterThanOrEqual(990);
    });

    it("rejects malformed sign-in bodies", async () => {
      expectError(await call("POST", "/session", { json: { token: "" } }), 400, "token is required");
      expectError(await call("POST", "/session", { json: { token: 5 } }), 400, "token must be a string");
      expectError(await call("POST", "/session", { json: [] }), 400, "Request body must be a JSON object");
      expectError(await call("POST", "/session", { json: "{not json" }), 400, MESSAGES.invalidJson);
      expectError(await call("POST", "/session", { json: JSON.stringify({ token: TOKEN }), headers: { "content-type": "text/plain" } }), 415, MESSAGES.unsupportedMediaType);
    });

    it("signs in with an HttpOnly SameSite=Strict cookie and signs out", async () => {
      const res = await call("POST", "/session", { json: { token: TOKEN } });
      expect(res.status).toBe(200);
      expect(res.body.message).toBe(ADMIN_MESSAGES.signedIn);
      const cookie = res.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`))!;
      expect(cookie).toMatch(/; HttpOnly/);
      expect(cookie).toMatch(/; SameSite=Strict/);
      expect(cookie).toMatch(/; Path=\/admin/);
      expect(res.headers.get("cache-control")).toBe("no-store");
      const session = { cookie: cookie.split(";")[0]!, csrf: res.body.data.csrfToken as string };

      const current = await call("GET", "/session", { session });
      expect(current.status).toBe(200);
      expect(current.body.data.csrfToken).toBe(session.csrf);

      expectError(await call("DELETE", "/session", { session, csrf: null }), 403, ADMIN_MESSAGES.csrfRejected);
      const out = await call("DELETE", "/session", { session });
      expect(out.status).toBe(200);
      expect(out.body.message).toBe(ADMIN_MESSAGES.signedOut);
      expectError(await call("GET", "/projects", { session }), 401, ADMIN_MESSAGES.signInRequired);
    });

    it("refuses mutations without the CSRF token or from another site, and creates nothing", async () => {
      const session = await signIn();
      const before = (await call("GET", "/projects", { session })).body.data.projects.length;
      const attempt = (extra: Parameters<typeof call>[2]) => call("POST", "/projects", { session, json: { name: "csrf" }, ...extra });
      expectError(await attempt({ csrf: null }), 403, ADMIN_MESSAGES.csrfRejected);
      expectError(await attempt({ csrf: "not-the-token" }), 403, ADMIN_MESSAGES.csrfRejected);
      expectError(await attempt({ headers: { origin: "https://evil.example" } }), 403, ADMIN_MESSAGES.crossOrigin);
      expectError(await attempt({ headers: { "sec-fetch-site": "cross-site" } }), 403, ADMIN_MESSAGES.crossOrigin);
      expectError(
        await call("POST", "/session", { json: { token: TOKEN }, headers: { origin: "https://evil.example" } }),
        403,
        ADMIN_MESSAGES.crossOrigin,
      );
      expect((await call("GET", "/projects", { session })).body.data.projects.length).toBe(before);
      const sameOrigin = await attempt({ headers: { origin: server.url, "sec-fetch-site": "same-origin" } });
      expect(sameOrigin.status).toBe(201);
    });
  });

  describe("operations", () => {
    let session: Session;
    beforeAll(async () => {
      session = await signIn();
    });

    it("validates input with messages that name the problem", async () => {
      expectError(await call("POST", "/projects", { session, json: { name: "  " } }), 400, "name is required");
      expectError(await call("POST", "/projects", { session, json: { name: "x".repeat(101) } }), 400, "name must be at most 100 characters");
      expectError(await call("POST", "/projects", { session, json: { name: "a", plan: "gold" } }), 400, "plan must be one of free, starter, growth, scale");
      expectError(await call("POST", "/projects", { session, json: "[1" }), 400, MESSAGES.invalidJson);
      expectError(await call("GET", "/projects/nope/keys", { session }), 404, "Project not found: nope");
      const { project } = (await call("POST", "/projects", { session, json: { name: "validation" } })).body.data;
      const p = `/projects/${project.id}`;
      expectError(await call("POST", `${p}/keys`, { session, json: {} }), 400, "name must be a string");
      expectError(await call("POST", `${p}/plan`, { session, json: { plan: null } }), 400, "plan must be one of free, starter, growth, scale");
      expectError(await call("POST", `${p}/websites`, { session, json: { origin: "ftp://example.com" } }), 400, "Unsupported scheme in origin pattern: ftp");
      expectError(await call("GET", `${p}/conversions?limit=0`, { session }), 400, "limit must be an integer between 1 and 50");
      expectError(await call("GET", `${p}/conversions?offset=-1`, { session }), 400, `offset must be an integer between 0 and ${Number.MAX_SAFE_INTEGER}`);
      expectError(await call("GET", `${p}/conversions?status=done`, { session }), 400, "status must be one of success, failed, invalid-ip-address");
      expectError(await call("GET", `${p}/conversions/00000000-0000-4000-8000-000000000000`, { session }), 404, MESSAGES.conversionNotFound);
      expectError(await call("POST", "/projects", { session, json: { name: "a\u0000b" } }), 400, "name must not contain control characters");
      expectError(await call("POST", `${p}/keys`, { session, json: { name: "line\nbreak" } }), 400, "name must not contain control characters");
      expectError(await call("GET", `${p}/conversions/not-a-uuid`, { session }), 400, "uniqueId must be a uuid");
      const nul = await call("GET", `${p}/conversions?ipSearch=${encodeURIComponent("1\u0000")}`, { session });
      expect(nul.status).toBe(200);
      expect(nul.body.data.totalCount).toBe(0);
      expectError(await call("POST", "/keys/nope/roll", { session }), 404, "Key not found: nope");
      expectError(await call("DELETE", "/websites/nope", { session }), 404, "Website not found: nope");
    });

    it("creates projects, changes plans and shows usage, like the CLI", async () => {
      const created = await call("POST", "/projects", { session, json: { name: "Shop", plan: "starter" } });
      expect(created.status).toBe(201);
      const { project, secretKey } = created.body.data;
      expect(project).toMatchObject({ name: "Shop", plan: "starter" });
      expect(secretKey).toMatch(/^ipa_sk_/);

      const fromCli = await server.cli("project", "create", "--name", "From CLI");
      const listed = (await call("GET", "/projects", { session })).body.data.projects as any[];
      const shop = listed.find((p) => p.id === project.id);
      expect(shop.usage).toMatchObject({ plan: "starter", used: 0, limit: 10000 });
      expect(new Date(shop.usage.periodEnd).getUTCDate()).toBe(1);
      expect(listed.some((p) => p.id === fromCli.project.id)).toBe(true);

      const changed = await call("POST", `/projects/${project.id}/plan`, { session, json: { plan: "scale" } });
      expect(changed.body.data.project.plan).toBe("scale");
      const after = (await call("GET", "/projects", { session })).body.data.projects.find((p: any) => p.id === project.id);
      expect(after.usage).toMatchObject({ plan: "scale", limit: null });
      const cliList = await server.cli("project", "list");
      expect(cliList.projects.find((p: any) => p.id === project.id).plan).toBe("scale");
    });

    it("creates, rolls and revokes secret keys: the value once, the old one dead at once", async () => {
      const { project } = (await call("POST", "/projects", { session, json: { name: "Keys" } })).body.data;
      const created = await call("POST", `/projects/${project.id}/keys`, { session, json: { name: "backend" } });
      expect(created.status).toBe(201);
      const { key, secretKey } = created.body.data;
      expect(secretKey.startsWith(key.prefix)).toBe(true);
      const convert = (value: string) => fetch(`${server.url}/convert?ip=8.8.8.8`, { headers: { "x-api-key": value } });
      expect((await convert(secretKey)).status).toBe(200);

      const listed = (await call("GET", `/projects/${project.id}/keys`, { session })).body.data.keys as any[];
      expect(listed.map((k) => k.name).sort()).toEqual(["backend", "default"]);
      expect(JSON.stringify(listed)).not.toContain(secretKey);

      const rolled = (await call("POST", `/keys/${key.id}/roll`, { session })).body.data;
      expect(rolled.secretKey).toMatch(/^ipa_sk_/);
      expect((await convert(secretKey)).status).toBe(401);
      expect((await convert(rolled.secretKey)).status).toBe(200);

      const revoked = await call("POST", `/keys/${key.id}/revoke`, { session });
      expect(revoked.body.data.key.revokedAt).not.toBeNull();
      expect((await convert(rolled.secretKey)).status).toBe(401);
      expectError(await call("POST", `/keys/${key.id}/roll`, { session }), 400, `Key is revoked: ${key.id}`);
    });

    it("adds websites with a public key and snippet, rolls the key, removes the website", async () => {
      const { project } = (await call("POST", "/projects", { session, json: { name: "Sites" } })).body.data;
      const added = await call("POST", `/projects/${project.id}/websites`, { session, json: { origin: "*.Example.com" } });
      expect(added.status).toBe(201);
      const { website, publicKey, snippet } = added.body.data;
      expect(website.origin).toBe("*.example.com");
      expect(publicKey).toMatch(/^ipa_pk_/);
      if (snippet !== null) {
        expect(snippet.html).toContain(`data-key="${publicKey}"`);
        expect(snippet.html).toMatch(/integrity="sha384-/);
      }
      const fromSite = (value: string, origin: string) =>
        fetch(`${server.url}/convert?ip=1.1.1.1`, { headers: { "x-api-key": value, origin } });
      expect((await fromSite(publicKey, "https://shop.example.com")).status).toBe(200);
      expect((await fromSite(publicKey, "https://example.com")).status).toBe(401);

      const listed = (await call("GET", `/projects/${project.id}/websites`, { session })).body.data.websites;
      expect(listed).toEqual([{ id: website.id, origin: "*.example.com", keyId: website.keyId, keyPrefix: website.keyPrefix }]);
      expect((await server.cli("website", "list", "--project", project.id)).websites[0].id).toBe(website.id);

      const rolled = (await call("POST", `/keys/${website.keyId}/roll`, { session })).body.data;
      expect(rolled.publicKey).toMatch(/^ipa_pk_/);
      expect((await fromSite(publicKey, "https://shop.example.com")).status).toBe(401);
      expect((await fromSite(rolled.publicKey, "https://shop.example.com")).status).toBe(200);

      expectError(await call("POST", `/projects/${project.id}/websites`, { session, json: { origin: "*.example.com" } }), 400, "Website already added: *.example.com");
      const removed = await call("DELETE", `/websites/${website.id}`, { session });
      expect(removed.body.data.website.id).toBe(website.id);
      expect((await fromSite(rolled.publicKey, "https://shop.example.com")).status).toBe(401);
      expect((await call("GET", `/projects/${project.id}/websites`, { session })).body.data.websites).toEqual([]);
    });

    it("lists, filters, pages and shows stored conversions, and maps them", async () => {
      const { project, secretKey } = (await call("POST", "/projects", { session, json: { name: "Traffic", plan: "scale" } })).body.data;
      const ips = ["8.8.8.8", "8.8.4.4", "1.1.1.1", "not-an-ip", "2001:4860:4860::8888"];
      const bulk = await fetch(`${server.url}/convert`, {
        method: "POST",
        headers: { "x-api-key": secretKey, "content-type": "application/json" },
        body: JSON.stringify({ ips }),
      });
      expect(bulk.status).toBe(200);
      const p = `/projects/${project.id}`;

      const all = (await call("GET", `${p}/conversions`, { session })).body.data;
      expect(all.totalCount).toBe(5);
      expect(all.hasMore).toBe(false);
      expect(all.conversions.map((c: any) => c.data.ip).sort()).toEqual([...ips].sort());

      const page = (await call("GET", `${p}/conversions?limit=2&offset=2`, { session })).body.data;
      expect(page.conversions).toHaveLength(2);
      expect(page.hasMore).toBe(true);

      const prefix = (await call("GET", `${p}/conversions?ipSearch=8.8.`, { session })).body.data;
      expect(prefix.totalCount).toBe(2);
      const cidr = (await call("GET", `${p}/conversions?ipSearch=${encodeURIComponent("8.8.4.0/24")}`, { session })).body.data;
      expect(cidr.conversions.map((c: any) => c.data.ip)).toEqual(["8.8.4.4"]);
      const v6 = (await call("GET", `${p}/conversions?ipSearch=${encodeURIComponent("2001:4860::/32")}`, { session })).body.data;
      expect(v6.totalCount).toBe(1);

      const invalid = (await call("GET", `${p}/conversions?status=invalid-ip-address`, { session })).body.data;
      expect(invalid.totalCount).toBe(1);
      expect(invalid.conversions[0].data.ip).toBe("not-an-ip");
      const successPage = (await call("GET", `${p}/conversions?status=success&limit=3&offset=1`, { session })).body.data;
      expect(successPage).toMatchObject({ totalCount: 4, hasMore: false });
      expect(successPage.conversions).toHaveLength(3);

      const one = all.conversions[0];
      const detail = (await call("GET", `${p}/conversions/${one.uniqueId}`, { session })).body.data.conversion;
      expect(detail).toEqual(one);

      const map = (await call("GET", `${p}/map`, { session })).body.data;
      expect(map.sampled).toBe(5);
      const us = map.countries.find((c: any) => c.code === "US");
      expect(us).toMatchObject({ numeric: "840", name: "United States" });
      expect(us.count).toBeGreaterThanOrEqual(1);
      expect(map.points.length).toBeGreaterThan(0);
      for (const point of map.points) {
        expect(Math.abs(point.latitude)).toBeLessThanOrEqual(90);
        expect(Math.abs(point.longitude)).toBeLessThanOrEqual(180);
      }

      // the status filter walks the rows in chunks of 500: 1,200 rows cross two chunk edges
      const many = Array.from({ length: 1200 }, (_, i) => (i % 3 === 0 ? `bad-${i}` : `10.0.${i >> 8}.${i & 255}`));
      const big = await fetch(`${server.url}/convert`, {
        method: "POST",
        headers: { "x-api-key": secretKey, "content-type": "application/json" },
        body: JSON.stringify({ ips: many }),
      });
      expect(big.status).toBe(200);
      const lastInvalid = (await call("GET", `${p}/conversions?status=invalid-ip-address&limit=50&offset=375`, { session })).body.data;
      expect(lastInvalid).toMatchObject({ totalCount: 401, hasMore: false });
      expect(lastInvalid.conversions).toHaveLength(26);
      expect(lastInvalid.conversions.every((c: any) => c.status === "invalid-ip-address")).toBe(true);
      const middle = (await call("GET", `${p}/conversions?status=success&limit=50&offset=300`, { session })).body.data;
      expect(middle).toMatchObject({ totalCount: 804, hasMore: true });
      expect(middle.conversions).toHaveLength(50);
      expect(new Set(middle.conversions.map((c: any) => c.status))).toEqual(new Set(["success"]));
      const inRange = (await call("GET", `${p}/conversions?status=success&ipSearch=${encodeURIComponent("10.0.4.0/24")}`, { session })).body.data;
      expect(inRange.totalCount).toBe(Array.from({ length: 1200 }, (_, i) => i).filter((i) => i % 3 !== 0 && i >> 8 === 4).length);

      // another project's conversion is not found through this project
      const other = (await call("POST", "/projects", { session, json: { name: "Other" } })).body.data.project;
      expectError(await call("GET", `/projects/${other.id}/conversions/${one.uniqueId}`, { session }), 404, MESSAGES.conversionNotFound);
    });
  });

});

describe("admin token without IPATLAS_ADMIN_TOKEN", () => {
  it("is generated once into the data dir with mode 0600 and printed once", async () => {
    const { statSync, readFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const first = await startServer({ env: { IPATLAS_ADMIN_TOKEN: "" } });
    try {
      const file = join(first.dataDir, "admin-token");
      const token = readFileSync(file, "utf8").trim();
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(first.output()).toContain(token);
      const res = await fetch(`${first.url}/admin/api/session`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token }),
      });
      expect(res.status).toBe(200);

      const second = await startServer({ env: { IPATLAS_ADMIN_TOKEN: "" }, dataDir: first.dataDir });
      try {
        expect(second.output()).not.toContain(token);
        expect(readFileSync(file, "utf8").trim()).toBe(token);
      } finally {
        await second.stop();
      }
    } finally {
      await first.stop();
    }
  });
});
