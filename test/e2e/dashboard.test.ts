/**
 * The dashboard in Debian Chromium against the real server: sign in, create a project, create a
 * key and see it once, add a website and copy its snippet, convert with the new key over HTTP,
 * find the conversion in the list and on the map; keyboard, dark mode and a narrow window.
 * Screenshots go to /work/notes/screens/web-dashboard-*.png (outside the repository).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { join } from "node:path";
import { readFileSync } from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { buildDashboard } from "../../dashboard/build.js";
import { readWidgetManifest } from "../../server/widget/manifest.js";
import { launchBrowser } from "../helpers/chromium.js";
import { ROOT, startServer, type TestServer } from "../helpers/server.js";

const TOKEN = "e2e-admin-token-9876543210";
let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;

const shot = (name: string) => page.screenshot({ path: `/work/notes/screens/web-dashboard-${name}.png`, fullPage: true });
/** what the next confirm() gets: most tests accept, the plan test also says no once */
let confirmAnswer = true;

beforeAll(async () => {
  await buildDashboard();
  // the snippet needs a built widget; `npm test` builds it first, a lone run of this file may not have
  if (!readWidgetManifest()) await promisify(execFile)(process.execPath, [join(ROOT, "node_modules/tsx/dist/cli.mjs"), "widget/build.ts"], { cwd: ROOT });
  server = await startServer({ env: { IPATLAS_ADMIN_TOKEN: TOKEN } });
  browser = await launchBrowser();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
  page = await context.newPage();
  page.on("dialog", (dialog) => void (confirmAnswer ? dialog.accept() : dialog.dismiss()));
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const clipboard = () => page.evaluate(() => navigator.clipboard.readText());

describe("dashboard page", () => {
  it("is served under a strict CSP with content-hashed assets cached for good", async () => {
    const res = await fetch(`${server.url}/dashboard`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toContain("script-src 'self';");
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    const html = await res.text();
    const script = /src="(\/dashboard\/assets\/app-[0-9a-f]{16}\.js)"/.exec(html)![1]!;
    const asset = await fetch(`${server.url}${script}`, { headers: { "accept-encoding": "gzip" } });
    expect(asset.status).toBe(200);
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(asset.headers.get("content-type")).toMatch(/^text\/javascript/);
    const slash = await fetch(`${server.url}/dashboard/`, { redirect: "manual" });
    expect(slash.status).toBe(301);
    expect(slash.headers.get("location")).toMatch(/\/dashboard$/);
    expect((await fetch(`${server.url}/dashboard/assets/../../package.json`)).status).toBe(404);
  });
});

describe("dashboard", () => {
  let projectId = "";
  let secretKey = "";

  it("signs in with the admin token after refusing a wrong one, and opens the only project directly", async () => {
    await page.goto(`${server.url}/dashboard`);
    const tokenInput = page.getByLabel("Admin token");
    await tokenInput.fill("wrong token");
    await tokenInput.press("Enter");
    await expect.poll(() => page.getByRole("alert").textContent()).toBe("Invalid admin token");
    await shot("sign-in-error");
    await tokenInput.fill(TOKEN);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("navigation", { name: "Projects" }).waitFor();
    // the first run made one project, "default": nothing to choose, so it is open
    await page.getByRole("heading", { name: "default", level: 1 }).waitFor();
    await expect.poll(() => page.getByRole("tab", { name: "Conversions" }).getAttribute("aria-selected")).toBe("true");
    await page.getByText("No conversions match.").waitFor();
  });

  it("creates a project and shows its first key once", async () => {
    // the form is folded once a project exists (the server's first run made "default")
    const form = page.locator("details.create-project");
    if ((await form.getAttribute("open")) === null) await form.locator("summary").click();
    await page.getByLabel("Name", { exact: true }).fill("E2E Shop");
    await page.locator("#project-plan").selectOption("starter");
    await page.getByRole("button", { name: "Create project" }).click();
    await page.getByRole("heading", { name: "E2E Shop", level: 1 }).waitFor();
    projectId = decodeURIComponent(/#\/p\/([^/]+)/.exec(page.url())![1]!);
    const first = await page.getByTestId("secret-value").textContent();
    expect(first).toMatch(/^ipa_sk_/);
    expect(await page.getByTestId("usage-text").textContent()).toBe("0 of 10,000 conversions used this month");
    await page.getByRole("button", { name: "I have stored it" }).click();
    expect(await page.content()).not.toContain(first!);
  });

  it("creates a secret key, shows it once with a copy button, and lists it by prefix", async () => {
    await page.getByLabel("Key name").fill("backend");
    await page.getByRole("button", { name: "Create key" }).click();
    const value = page.getByTestId("secret-value");
    await value.waitFor();
    secretKey = (await value.textContent())!;
    expect(secretKey).toMatch(/^ipa_sk_/);
    await expect.poll(() => page.getByText("this is the only time it is shown").count()).toBe(1);
    await page.getByRole("button", { name: "Copy key" }).click();
    await expect.poll(clipboard).toBe(secretKey);
    const row = page.getByRole("row", { name: /backend/ });
    await row.waitFor();
    const prefix = (await row.locator("code").textContent())!.replace("…", "");
    expect(secretKey.startsWith(prefix)).toBe(true);
    await shot("keys-desktop");
    // gone after a reload: the server never sends it again
    await page.reload();
    await page.getByRole("row", { name: /backend/ }).waitFor();
    expect(await page.content()).not.toContain(secretKey);
  });

  it("adds a website, shows its public key and a snippet to copy", async () => {
    // arrow keys move between the tabs
    await page.getByRole("tab", { name: "Secret keys" }).focus();
    await page.keyboard.press("ArrowRight");
    await expect.poll(() => page.getByRole("tab", { name: "Websites" }).getAttribute("aria-selected")).toBe("true");
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("tab-websites");

    const origin = page.getByLabel("Origin pattern");
    await origin.fill("ftp://example.com");
    await origin.press("Enter");
    await expect.poll(() => page.getByRole("alert").first().textContent()).toBe("Unsupported scheme in origin pattern: ftp");
    await origin.fill("shop.example.com");
    await page.getByRole("button", { name: "Add website" }).click();
    const publicKey = (await page.getByTestId("secret-value").textContent())!;
    expect(publicKey).toMatch(/^ipa_pk_/);
    const snippet = (await page.getByTestId("snippet").textContent())!;
    expect(snippet).toContain(`data-key="${publicKey}"`);
    expect(snippet).toMatch(/integrity="sha384-[^"]+"/);
    await page.getByRole("button", { name: "Copy snippet" }).click();
    await expect.poll(clipboard).toBe(snippet);
    await page.getByRole("row", { name: /shop\.example\.com/ }).waitFor();
    await shot("websites-desktop");
  });

  it("shows a conversion made with the new key in the list, in detail and on the map", async () => {
    const res = await fetch(`${server.url}/convert`, {
      method: "POST",
      headers: { "x-api-key": secretKey, "content-type": "application/json" },
      body: JSON.stringify({ ips: ["8.8.8.8", "81.2.69.142", "1.1.1.1", "not an ip"] }),
    });
    expect(res.status).toBe(200);

    await page.getByRole("tab", { name: "Conversions" }).click();
    const table = page.getByTestId("conversions-table");
    await table.waitFor();
    expect(await table.locator("tbody tr").count()).toBe(4);

    await page.getByLabel("IP address, prefix or CIDR").fill("8.8.0.0/16");
    await page.getByRole("button", { name: "Search" }).click();
    await expect.poll(() => table.locator("tbody tr").count()).toBe(1);
    await page.getByRole("button", { name: "8.8.8.8" }).click();
    const dialog = page.getByRole("dialog", { name: "Conversion of 8.8.8.8" });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain("success");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });

    const map = page.getByTestId("world-map");
    await map.waitFor();
    expect(await map.locator("path.country").count()).toBeGreaterThan(150);
    expect(await map.locator('path.hit[data-country="US"]').count()).toBeGreaterThan(0);
    expect(await map.getByTestId("map-point").count()).toBeGreaterThan(0);
    await page.getByLabel("IP address, prefix or CIDR").fill("");
    await page.getByRole("button", { name: "Search" }).click();
    await expect.poll(() => table.locator("tbody tr").count()).toBe(4);
    await page.getByRole("button", { name: "Refresh" }).click();
    // usage went up by the four addresses
    await page.reload();
    await expect.poll(() => page.getByTestId("usage-text").textContent()).toBe("4 of 10,000 conversions used this month");
    await shot("conversions-desktop");
  });

  it("filters by status", async () => {
    await page.getByLabel("Status").selectOption("invalid-ip-address");
    await page.getByRole("button", { name: "Search" }).click();
    const table = page.getByTestId("conversions-table");
    await expect.poll(() => table.locator("tbody tr").count()).toBe(1);
    expect(await table.locator("tbody tr").textContent()).toContain("not an ip");
    await page.getByLabel("Status").selectOption("");
    await page.getByRole("button", { name: "Search" }).click();
    await expect.poll(() => table.locator("tbody tr").count()).toBe(4);
  });

  it("draws the map first, following country and ASN filters, with a legend, hover details and conversions per day", async () => {
    const res = await fetch(`${server.url}/convert`, {
      method: "POST",
      headers: { "x-api-key": secretKey, "content-type": "application/json" },
      body: JSON.stringify({ ips: ["10.0.0.7", "81.2.69.160", "2a00:1450:4001:82f::200e", "8.8.4.4"] }),
    });
    expect(res.status).toBe(200);
    await page.getByRole("button", { name: "Refresh" }).click();
    const table = page.getByTestId("conversions-table");
    await expect.poll(() => table.locator("tbody tr").count()).toBe(8);
    // a private address says why it has no location
    expect(await page.getByRole("row", { name: /10\.0\.0\.7/ }).textContent()).toContain("private network");

    const map = page.getByTestId("world-map");
    // the map comes before the list on the page
    expect(await page.evaluate(() => {
      const m = document.querySelector('[data-testid="world-map"]')!;
      const t = document.querySelector('[data-testid="conversions-table"]')!;
      return Boolean(m.compareDocumentPosition(t) & Node.DOCUMENT_POSITION_FOLLOWING);
    })).toBe(true);
    expect(await page.locator(".map-legend").textContent()).toContain("conversions per country");
    await map.locator('path.hit[data-country="US"]').first().hover();
    await expect.poll(() => page.getByTestId("map-hover").textContent()).toMatch(/^United States\d conversions? \(\d+%\)$/);
    // the same details by keyboard
    await map.locator('path.hit[data-country="GB"]').focus();
    await expect.poll(() => page.getByTestId("map-hover").textContent()).toMatch(/^United Kingdom2 conversions \(\d+%\)$/);
    const days = page.getByTestId("daily-chart");
    expect(await days.locator("rect").count()).toBe(30);
    expect(await days.getAttribute("aria-label")).toContain(`${new Date().toISOString().slice(0, 10)} 8`);
    await shot("conversions-1280-light");

    await page.locator("#country-filter").fill("gb");
    await page.getByRole("button", { name: "Search" }).click();
    await expect.poll(() => table.locator("tbody tr").count()).toBe(2);
    await expect.poll(() => map.locator("path.hit").evaluateAll((paths) => paths.map((p) => p.getAttribute("data-country")))).toEqual(["GB"]);
    expect(await days.getAttribute("aria-label")).toContain(`${new Date().toISOString().slice(0, 10)} 2`);

    await page.getByRole("button", { name: "Clear" }).click();
    await page.locator("#asn-filter").fill("AS15169");
    await page.getByRole("button", { name: "Search" }).click();
    await expect.poll(() => table.locator("tbody tr").count()).toBe(3); // 8.8.8.8, 8.8.4.4 and Google's IPv6
    await page.locator("#asn-filter").fill("google");
    await page.getByRole("button", { name: "Search" }).click();
    await expect.poll(() => page.getByRole("alert").first().textContent()).toBe("asn must be an AS number such as 15169 or AS15169");
    await page.locator("#asn-filter").fill("15169");
    await page.getByRole("button", { name: "Search" }).click();
    await expect.poll(() => table.locator("tbody tr").count()).toBe(3);
  });

  it("exports the filtered list as CSV and NDJSON, streamed", async () => {
    const [csvDownload] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "CSV" }).click()]);
    expect(csvDownload.suggestedFilename()).toMatch(/^conversions-.+\.csv$/);
    const csv = readFileSync((await csvDownload.path())!, "utf8").trimEnd().split("\r\n");
    expect(csv[0]).toBe("uniqueId,createdAt,status,ip,country,region,city,latitude,longitude,asn,asnName");
    expect(csv).toHaveLength(4);
    expect(csv.slice(1).every((line) => line.includes(",15169,"))).toBe(true);
    const [ndjsonDownload] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "NDJSON" }).click()]);
    const rows = readFileSync((await ndjsonDownload.path())!, "utf8").trimEnd().split("\n").map((line) => JSON.parse(line));
    expect(rows.map((r) => r.data.asn.number)).toEqual([15169, 15169, 15169]);
    // the same stream over HTTP: a bad filter is a readable 400, not a broken file
    const cookies = await context.cookies(`${server.url}/admin/api`);
    const cookie = cookies.map((c) => `${c.name}=${c.value}`).join("; ");
    const bad = await fetch(`${server.url}/admin/api/projects/${encodeURIComponent(projectId)}/conversions/export?format=xml`, { headers: { cookie } });
    expect(bad.status).toBe(400);
    expect((await bad.json()).message).toBe("format must be csv or ndjson");
    await page.getByRole("button", { name: "Clear" }).click();
  });

  it("asks before changing the plan, and keeps it when told no", async () => {
    const select = page.locator("#plan-select");
    confirmAnswer = false;
    await select.selectOption("growth");
    await expect.poll(() => select.inputValue()).toBe("starter");
    expect(await page.getByRole("link", { name: /E2E Shop/ }).textContent()).toContain("starter");
    confirmAnswer = true;
    await select.selectOption("growth");
    await expect.poll(() => page.getByRole("link", { name: /E2E Shop/ }).textContent()).toContain("growth");
    await expect.poll(() => page.getByTestId("usage-text").textContent()).toBe("8 of 100,000 conversions used this month");
  });

  it("rolls a key (new value once, old one dead at once) and revokes it", async () => {
    const convert = (key: string) => fetch(`${server.url}/convert?ip=9.9.9.9`, { headers: { "x-api-key": key } });
    await page.getByRole("tab", { name: "Secret keys" }).click();
    await page.getByRole("button", { name: "Roll backend" }).click();
    const value = page.getByTestId("secret-value");
    await expect.poll(() => value.textContent()).not.toBe(secretKey);
    const rolled = (await value.textContent())!;
    expect(rolled).toMatch(/^ipa_sk_/);
    expect((await convert(secretKey)).status).toBe(401);
    expect((await convert(rolled)).status).toBe(200);
    await page.getByRole("button", { name: "Revoke backend" }).click();
    await page.getByRole("row", { name: /backend.*revoked/ }).waitFor();
    expect((await convert(rolled)).status).toBe(401);
  });

  it("rolls a website's key with a new snippet, and removes the website", async () => {
    await page.getByRole("tab", { name: "Websites" }).click();
    await page.getByRole("button", { name: "Roll the key of shop.example.com" }).click();
    const publicKey = (await page.getByTestId("secret-value").textContent())!;
    expect(publicKey).toMatch(/^ipa_pk_/);
    expect(await page.getByTestId("snippet").textContent()).toContain(`data-key="${publicKey}"`);
    await page.getByRole("button", { name: "Remove shop.example.com" }).click();
    await page.getByText("No websites yet.").waitFor();
    const res = await fetch(`${server.url}/convert?ip=9.9.9.9`, { headers: { "x-api-key": publicKey, origin: "https://shop.example.com" } });
    expect(res.status).toBe(401);
  });

  it("fits a narrow window and dark mode", async () => {
    await page.getByRole("tab", { name: "Conversions" }).click();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme: "dark" });
    await page.reload();
    await page.getByTestId("world-map").waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    const tabsOverflow = await page.getByRole("tablist").evaluate((tabs) => tabs.scrollWidth - tabs.clientWidth);
    expect(tabsOverflow).toBeLessThanOrEqual(0);
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(background).toBe("rgb(15, 20, 25)");
    await page.getByTestId("daily-chart").waitFor();
    await shot("conversions-390-dark");
    await page.emulateMedia({ colorScheme: "light" });
    await shot("conversions-390-light");
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.emulateMedia({ colorScheme: "dark" });
    await shot("conversions-1280-dark");
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole("tab", { name: "Secret keys" }).click();
    await page.getByRole("row", { name: /backend/ }).waitFor();
    await shot("keys-390-dark");
  });

  it("signs out", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("Admin token").waitFor();
    await page.reload();
    await page.getByLabel("Admin token").waitFor();
    expect(projectId).not.toBe("");
  });
});
