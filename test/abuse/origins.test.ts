/**
 * The origin matrix over HTTP: a request's Origin is allowed only in its exact serialized form,
 * the admin API's same-origin check compares scheme, host and port, the widget demo names no
 * origin a link chose, and the SQLite file is its owner's alone.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { statSync, existsSync } from "node:fs";
import { join } from "node:path";
import { MESSAGES } from "../../lib/schemas/messages.js";
import { expectEnvelope, startApi, type ApiHarness } from "../helpers/api.js";

const ADMIN_TOKEN = "abuse-suite-admin-token-0123456789";
let api: ApiHarness;
let shopKey: string;
let orgKey: string;

const REFUSED = [
  "https://shop.example.com/",
  "https://user@shop.example.com",
  "https://user:pw@shop.example.com",
  "https://shop%2eexample.com",
  "https://shop.example.com:",
  "https://shop.example.com:0443",
  "https://shop.example.com:443",
  "https://SHOP.example.com.",
  "https://shop.example.com/x",
  "https://shop.example.com?",
  "http://shop.example.com:80/",
  "https://.example.org",
  "https://a..example.org",
  "https://a.example.org/",
  "https://user@a.example.org",
  "https://a.example.org:0443",
  "https://example.org",
  "null",
  "",
];

beforeAll(async () => {
  api = await startApi("sqlite", { IPATLAS_ADMIN_TOKEN: ADMIN_TOKEN });
  const project = await api.project("scale");
  shopKey = (await api.server.cli("website", "add", "--project", project.id, "--origin", "https://shop.example.com")).publicKey;
  orgKey = (await api.server.cli("website", "add", "--project", project.id, "--origin", "*.example.org")).publicKey;
});
afterAll(() => api?.stop());

describe("origin matrix", () => {
  it("refuses every rewritten spelling of an allowed origin and names none of them back", async () => {
    let checked = 0;
    for (const origin of REFUSED) {
      for (const key of [shopKey, orgKey]) {
        const answer = await api.call("/convert?ip=8.8.8.8", { key, origin });
        expectEnvelope(answer, 401, MESSAGES.originNotAllowed);
        expect(answer.headers.get("access-control-allow-origin"), origin).toBeNull();
        checked++;
      }
      // a preflight (no key yet) names back a well-formed origin only
      const preflight = await fetch(`${api.server.url}/convert`, { method: "OPTIONS", headers: { origin } });
      expect(preflight.status).toBe(204);
      const named = preflight.headers.get("access-control-allow-origin");
      if (origin === "https://example.org") expect(named).toBe(origin);
      else expect(named, origin).toBeNull();
    }
    console.log(`origin matrix: ${checked} refused spellings`);
    for (const [key, origin] of [[shopKey, "https://shop.example.com"], [shopKey, "https://SHOP.example.com"], [orgKey, "https://a.example.org"], [orgKey, "http://b.c.example.org"]] as const) {
      const answer = await api.call("/convert?ip=8.8.8.8", { key, origin });
      expectEnvelope(answer, 200);
      expect(answer.headers.get("access-control-allow-origin")).toBe(origin);
    }
  });

  it("admin sign-in compares the whole origin: scheme, host and port", async () => {
    const signIn = (origin: string) =>
      api.call("/admin/api/session", { json: { token: ADMIN_TOKEN }, origin });
    const own = new URL(api.server.url);
    for (const origin of [`https://${own.host}`, `http://${own.hostname}:1`, `http://${own.host}/`, `http://localhost:${own.port}`, "null"]) {
      expectEnvelope(await signIn(origin), 403, "Cross-origin request refused");
    }
    expectEnvelope(await signIn(own.origin), 200);
  });

  it("the widget demo puts no origin a link chose into its CSP or script URL, and sends nosniff", async () => {
    const res = await fetch(`${api.server.url}/widget/demo?key=ipa_pk_x&api=${encodeURIComponent("https://evil.example")}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(res.headers.get("content-security-policy")).not.toContain("evil.example");
    expect(html).not.toContain("evil.example");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("the SQLite file and its journal are readable by their owner only", () => {
    const file = join(api.server.dataDir, "ipatlas.sqlite");
    for (const path of [file, `${file}-wal`, `${file}-shm`]) {
      if (path !== file && !existsSync(path)) continue;
      expect((statSync(path).mode & 0o777).toString(8), path).toBe("600");
    }
    expect((statSync(api.server.dataDir).mode & 0o777).toString(8)).toBe("700");
  });
});
