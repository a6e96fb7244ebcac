/**
 * What a new user meets in the first minute, against the real server: the startup lines (every
 * start names the dashboard), GET / and the API reference, and snippets that point at the server
 * that runs on the data dir, not at the default port.
 */
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeDataDir, runCli, startServer, type TestServer } from "../helpers/server.js";

const SLOW = 120_000;
let dataDir: string;
let server: TestServer;

const waitForOutput = async (running: TestServer, pattern: RegExp) => {
  for (let i = 0; i < 100 && !pattern.test(running.output()); i++) await new Promise((r) => setTimeout(r, 50));
  return running.output();
};

beforeAll(async () => {
  dataDir = makeDataDir();
  server = await startServer({ dataDir, env: { IPATLAS_ADMIN_TOKEN: "" } });
}, SLOW);
afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("the first minute", () => {
  it("prints the admin token once, the first key, and the dashboard's address after the listening line", async () => {
    const out = await waitForOutput(server, /Dashboard: /);
    expect(out).toMatch(/^Dashboard admin token \(saved to .+admin-token, shown only this once\): ipa_admin_/m);
    expect(out).toContain(`  Dashboard:  ${server.url}/dashboard  (sign in with the admin token from ${dataDir}/admin-token)`);
    expect(out).toContain(`  API:        ${server.url}/docs/api  ·  health: ${server.url}/healthz`);
    expect(out).not.toContain("Missing:");
  });

  it("answers GET / with a page that names the server and links the dashboard, the API reference and health", async () => {
    const res = await fetch(`${server.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    const html = await res.text();
    expect(html).toContain("<h1>IP Atlas</h1>");
    for (const href of ["/dashboard", "/docs/api", "/healthz", "/widget/demo"]) expect(html).toContain(`href="${href}"`);
    const docs = await fetch(`${server.url}/docs/api`);
    expect(docs.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await docs.text()).toMatch(/^# /);
    // everything else at the root is still the API's JSON 404
    expect((await (await fetch(`${server.url}/nope`)).json()).message).toBe("Not found");
  });

  it("prints snippets that point at the running server, and IPATLAS_PUBLIC_URL wins", async () => {
    const { project } = await server.cli("project", "create", "--name", "first minute");
    const added = await server.cli("website", "add", "--project", project.id, "--origin", "shop.example.com");
    expect(added.snippet).toContain(`src="${server.url}/widget/`);
    const viaEnv = await runCli(dataDir, { ...process.env, IPATLAS_PUBLIC_URL: "https://geo.example.com" }, "widget", "snippet", "--project", project.id);
    expect(viaEnv.scriptUrl.startsWith("https://geo.example.com/widget/")).toBe(true);
  });

  it("names the dashboard again on a restart", async () => {
    await server.stop();
    server = await startServer({ dataDir, env: { IPATLAS_ADMIN_TOKEN: "" } });
    const out = await waitForOutput(server, /Dashboard: /);
    expect(out).not.toContain("ipa_sk_");
    expect(out).not.toContain("shown only this once");
    expect(out).toContain(`  Dashboard:  ${server.url}/dashboard`);
  }, SLOW);
});
