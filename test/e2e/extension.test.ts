/**
 * The built Chrome extension (.output/chrome-mv3, from `npm run build:ext`) in Debian Chromium
 * against a real server: register the extension's origin, configure it through the options page
 * by its labels, hover addresses on a local page and read the card in its shadow root, and open
 * the popup. Screenshots go to /tmp/ipatlas-extension-*.png.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext, Locator, Page, Worker } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IpObject } from "../../lib/schemas/ip-object.js";
import { launchWithExtension } from "../helpers/chromium.js";
import { ROOT, startServer, type TestServer } from "../helpers/server.js";
import { countingProxy, DEMO_PAGE, logPage, servePages, type PageServer } from "../helpers/page-server.js";

const EXTENSION_DIR = join(ROOT, ".output/chrome-mv3");
const LOG_LINES = 2000;
const WAIT = { timeout: 10_000 };

let server: TestServer;
let pages: PageServer;
let context: BrowserContext;
let worker: Worker;
let extensionId: string;
let origin: string;
let projectId: string;
let secretKey: string;

async function usedConversions(): Promise<number> {
  return (await server.cli<{ used: number }>("usage", "--project", projectId)).used;
}

/** What the server itself says about an address (with the secret key, no Origin needed). */
async function serverAnswer(ip: string): Promise<IpObject> {
  const response = await fetch(`${server.url}/convert?ip=${encodeURIComponent(ip)}`, { headers: { "x-api-key": secretKey } });
  return ((await response.json()) as { data: IpObject }).data;
}

/** For expect.poll: the text of the first match, null while there is none (vitest has no Playwright matchers). */
function textOf(locator: Locator) {
  return () => locator.first().textContent({ timeout: 250 }).catch(() => null);
}

/** The worker has taken up a new server or key: it empties its cache as the last step. */
async function workerApplied() {
  const cached = () =>
    worker.evaluate(async () => {
      const api = (globalThis as unknown as { chrome: { storage: { local: { get(k: null): Promise<object> } } } }).chrome;
      return Object.keys(await api.storage.local.get(null)).filter((key) => key.startsWith("ip:")).length;
    });
  await expect.poll(cached, WAIT).toBe(0);
}

/** Moves the pointer off any card first: an open card may cover the next line's address. */
async function hoverMark(page: Page, text: string | RegExp) {
  await page.mouse.move(0, 0);
  await expect.poll(() => card(page).count(), WAIT).toBe(0);
  await page.locator("ipatlas-ip", { hasText: text }).hover();
}

function card(page: Page) {
  // Playwright's CSS locators pierce open shadow roots: this is the tooltip inside ipatlas-card.
  return page.locator("ipatlas-card [role=tooltip]");
}

async function openOptions(): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`chrome-extension://${extensionId}/options.html`);
  return page;
}

async function testConnectionWith(page: Page, apiKey: string) {
  await page.getByLabel("Server URL").fill(server.url);
  await page.getByLabel("API key").fill(apiKey);
  await page.getByRole("button", { name: "Test connection" }).click();
  const status = page.getByRole("status");
  await expect.poll(() => status.textContent(), { timeout: 10_000 }).not.toMatch(/^$|Testing/);
  return status;
}

beforeAll(async () => {
  if (!existsSync(join(EXTENSION_DIR, "manifest.json"))) {
    throw new Error(`${EXTENSION_DIR} is missing: run \`npm run build:ext\` first (npm test does it in pretest)`);
  }
  server = await startServer();
  pages = await servePages({ "/demo": DEMO_PAGE, "/log": logPage(LOG_LINES) });
  ({ context, extensionId } = await launchWithExtension(EXTENSION_DIR));
  worker = context.serviceWorkers()[0]!;
  origin = `chrome-extension://${extensionId}`;
  const created = await server.cli<{ project: { id: string }; secretKey: string }>("project", "create", "--name", "Extension e2e");
  projectId = created.project.id;
  secretKey = created.secretKey;
});

afterAll(async () => {
  await context?.close();
  await pages?.close();
  await server?.stop();
});

describe("browser extension", () => {
  it("options: Test connection says plainly what is wrong, then connects with a key for the extension's origin", async () => {
    const page = await openOptions();

    let status = await testConnectionWith(page, "ipa_pk_not_a_real_key");
    await expect.poll(() => status.textContent(), WAIT).toMatch(/does not know this API key/);

    // A key registered for another origin: the page shows this extension's origin and the command.
    const other = await server.cli<{ publicKey: string }>("website", "add", "--project", projectId, "--origin", "https://example.com");
    status = await testConnectionWith(page, other.publicKey);
    await expect.poll(() => status.textContent(), WAIT).toMatch(/origin is not registered/);
    await expect.poll(textOf(status), WAIT).toContain(`ipatlas website add --project <PROJECT_ID> --origin ${origin}`);
    await expect.poll(() => page.getByRole("button", { name: "Copy the extension's origin" }).isVisible(), WAIT).toBe(true);
    await page.screenshot({ path: "/tmp/ipatlas-extension-options-origin.png", fullPage: true });

    const registered = await server.cli<{ publicKey: string }>("website", "add", "--project", projectId, "--origin", origin);
    expect(registered.publicKey).toMatch(/^ipa_pk_/);
    status = await testConnectionWith(page, registered.publicKey);
    await expect.poll(() => status.textContent(), WAIT).toMatch(/Connected/);
    await expect.poll(textOf(status), WAIT).toContain("127.0.0.1");
    await page.screenshot({ path: "/tmp/ipatlas-extension-options-connected.png", fullPage: true });
    await page.close();
  }, 60_000);

  it("hover cards: IPv4, IPv6 and private addresses, not in fields or editable regions; new content is picked up", async () => {
    const page = await context.newPage();
    await page.goto(`${pages.url}/demo`);
    const marks = page.locator("ipatlas-ip");
    await expect.poll(() => marks.count(), { timeout: 10_000 }).toBe(8);
    expect(await marks.evaluateAll((els) => els.map((el) => el.textContent))).toEqual([
      "8.8.8.8", "1.1.1.1", "2001:4860:4860::8888", "::ffff:9.9.9.9", "192.168.1.10", "fd00::1", "203.0.113.9", "8.8.4.4",
    ]);
    expect(await page.locator("#editor ipatlas-ip, #field ipatlas-ip").count()).toBe(0);
    await expect.poll(textOf(page.locator("#editor")), WAIT).toBe("editable 1.0.0.1 stays plain");

    const google = await serverAnswer("8.8.8.8");
    await hoverMark(page, /^8\.8\.8\.8$/);
    await expect.poll(textOf(card(page)), WAIT).toContain("8.8.8.8");
    await expect.poll(textOf(card(page)), WAIT).toContain(google.continent!.country!.name!);
    await expect.poll(textOf(card(page)), WAIT).toContain(`AS${google.asn!.number}`);
    await page.screenshot({ path: "/tmp/ipatlas-extension-card-ipv4.png" });

    const v6 = await serverAnswer("2001:4860:4860::8888");
    await hoverMark(page, "2001:4860:4860::8888");
    await expect.poll(textOf(card(page)), WAIT).toContain("2001:4860:4860::8888");
    await expect.poll(textOf(card(page)), WAIT).toContain(v6.continent!.country!.name!);
    await expect.poll(textOf(card(page)), WAIT).toContain(`AS${v6.asn!.number}`);
    await page.screenshot({ path: "/tmp/ipatlas-extension-card-ipv6.png" });

    await hoverMark(page, "192.168.1.10");
    await expect.poll(textOf(card(page)), WAIT).toContain("Private / reserved address");
    await page.screenshot({ path: "/tmp/ipatlas-extension-card-private.png" });

    // Dark mode follows the system.
    await page.emulateMedia({ colorScheme: "dark" });
    const background = await card(page).evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(background).toBe("rgb(22, 27, 34)");
    await page.screenshot({ path: "/tmp/ipatlas-extension-card-dark.png" });
    await page.emulateMedia({ colorScheme: "light" });

    // Keyboard: focusing a mark shows its card; Escape hides it.
    await page.mouse.move(0, 0);
    await expect.poll(() => card(page).count(), WAIT).toBe(0);
    await page.locator("ipatlas-ip", { hasText: "1.1.1.1" }).focus();
    await expect.poll(textOf(card(page)), WAIT).toContain("1.1.1.1");
    await page.keyboard.press("Escape");
    await expect.poll(() => card(page).count(), WAIT).toBe(0);

    // Content added later is scanned by the MutationObserver.
    await page.evaluate(() => (document.getElementById("later")!.textContent = "New login from 9.9.9.9"));
    await expect.poll(textOf(page.locator("#later ipatlas-ip")), WAIT).toBe("9.9.9.9");

    // Private and reserved addresses were decided locally and never sent.
    const list = await fetch(`${server.url}/conversions/list?ipSearch=192.168.0.0/16`, { headers: { "x-api-key": secretKey } });
    expect(((await list.json()) as { data: { totalCount: number } }).data.totalCount).toBe(0);
    await page.close();
  }, 60_000);

  it("looks up visible addresses first and sends nothing on a second visit", async () => {
    const before = await usedConversions();
    const page = await context.newPage();
    await page.goto(`${pages.url}/log`);
    await expect.poll(() => page.locator("ipatlas-ip").count(), { timeout: 30_000 }).toBe(LOG_LINES);
    await expect.poll(usedConversions, { timeout: 10_000 }).toBeGreaterThan(before);
    await page.waitForTimeout(500);
    const afterFirst = await usedConversions();
    // Only the screenful (plus a margin) was looked up, not the 2000 lines.
    expect(afterFirst - before).toBeLessThan(200);

    await page.reload();
    await expect.poll(() => page.locator("ipatlas-ip").count(), { timeout: 30_000 }).toBe(LOG_LINES);
    await page.locator("ipatlas-ip").first().hover();
    await expect.poll(textOf(card(page)), WAIT).toContain("Country");
    expect(await usedConversions()).toBe(afterFirst);
    await page.close();
  }, 90_000);

  it("popup: own address, the tab's server address and a per-site switch", async () => {
    const page = await context.newPage();
    await page.goto(`${pages.url}/demo`);
    await expect.poll(() => page.locator("ipatlas-ip").count(), { timeout: 10_000 }).toBeGreaterThan(0);
    const tabId = await worker.evaluate(async (url) => {
      const api = (globalThis as unknown as { chrome: { tabs: { query(q: object): Promise<Array<{ id?: number; url?: string }>> } } }).chrome;
      const tabs = await api.tabs.query({});
      return tabs.find((tab) => tab.url === url)?.id;
    }, `${pages.url}/demo`);
    expect(tabId).toBeGreaterThan(0);

    const popup = await context.newPage();
    await popup.setViewportSize({ width: 380, height: 520 });
    await popup.goto(`chrome-extension://${extensionId}/popup.html?tabId=${tabId}`);
    const own = popup.getByRole("region", { name: "Your address" });
    await expect.poll(textOf(own), WAIT).toContain("127.0.0.1");
    const site = popup.getByRole("region", { name: /This site/ });
    await expect.poll(textOf(site), WAIT).toContain("127.0.0.1"); // the page's server, from webRequest details.ip
    await expect.poll(textOf(site), WAIT).toContain("Private / reserved address");
    await popup.screenshot({ path: "/tmp/ipatlas-extension-popup.png" });

    // Turning the site off stops the content script there.
    await popup.getByLabel("On for 127.0.0.1").uncheck();
    await page.reload();
    await page.waitForTimeout(1000);
    expect(await page.locator("ipatlas-ip").count()).toBe(0);
    await popup.getByLabel("On for 127.0.0.1").check();
    await page.reload();
    await expect.poll(() => page.locator("ipatlas-ip").count(), { timeout: 10_000 }).toBe(8);
    await popup.close();
    await page.close();
  }, 60_000);
  it("after a 429 the worker waits for the server's reset time instead of asking again", async () => {
    const limited = await startServer({ env: { IPATLAS_PUBLIC_RATE_LIMIT: "2" } });
    const counter = await countingProxy(limited.url);
    try {
      const project = await limited.cli<{ project: { id: string } }>("project", "create", "--name", "Limited");
      const site = await limited.cli<{ publicKey: string }>("website", "add", "--project", project.project.id, "--origin", origin);
      const options = await openOptions();
      await options.getByLabel("Server URL").fill(counter.url);
      await options.getByLabel("API key").fill(site.publicKey);
      await options.close();
      await workerApplied();

      const page = await context.newPage();
      await page.goto(`${pages.url}/demo`);
      await hoverMark(page, /^8\.8\.8\.8$/);
      await expect.poll(textOf(card(page)), WAIT).toContain("Country");
      const later = page.locator("#later");
      // Each new address that comes into view is one more POST /convert; the third is refused.
      for (const ip of ["5.5.5.5", "6.6.6.6"]) {
        await page.evaluate((text) => (document.getElementById("later")!.textContent = `New login from ${text}`), ip);
        await expect.poll(() => later.locator("ipatlas-ip").count(), WAIT).toBe(1);
        await hoverMark(page, ip);
        await expect.poll(textOf(card(page)), WAIT).not.toContain("Looking up");
      }
      await expect.poll(textOf(card(page)), WAIT).toMatch(/Too many lookups in a short time: the extension pauses\. Lookups resume in about 1 minute\./);
      const sent = counter.count();
      expect(sent).toBe(3);

      // More hovers and new addresses: answered from the back-off, nothing reaches the server.
      for (const ip of ["7.7.7.7", "6.6.6.6", "4.4.4.4"]) {
        await page.evaluate((text) => (document.getElementById("later")!.textContent = `New login from ${text}`), ip);
        await expect.poll(() => later.locator("ipatlas-ip").count(), WAIT).toBe(1);
        await hoverMark(page, ip);
        await expect.poll(textOf(card(page)), WAIT).toContain("Too many lookups");
      }
      await page.screenshot({ path: "/tmp/ipatlas-extension-card-429.png" });
      expect(counter.count()).toBe(sent);
      await page.close();
    } finally {
      const options = await openOptions();
      await options.getByLabel("Server URL").fill(server.url);
      await options.close();
      await workerApplied();
      await counter.close();
      await limited.stop();
    }
  }, 90_000);
});
