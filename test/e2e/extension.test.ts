/**
 * The built Chrome extension (.output/chrome-mv3, from `npm run build:ext`) in Debian Chromium
 * against a real server: register the extension's origin, configure it through the options page
 * by its labels, hover addresses on a local page and read the card in its shadow root, and open
 * the popup; then what users of such extensions expect: lookups only on interest, the toolbar
 * flag, detection's hard cases, keyboard use, the popup's lookup box and links, the context-menu
 * path, quota warnings and the UI in German and Japanese. Screenshots go to $IPATLAS_SCREENSHOTS
 * (default: the system's temp folder) as ext-*.png.
 */
import { existsSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Locator, Page, Worker } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IpObject } from "../../lib/schemas/ip-object.js";
import type { Settings } from "../../extension/shared/settings.js";
import { launchWithExtension } from "../helpers/chromium.js";
import { ROOT, startServer, type TestServer } from "../helpers/server.js";
import { countingProxy, DEMO_PAGE, DETECT_PAGE, logPage, servePages, type PageServer } from "../helpers/page-server.js";

const EXTENSION_DIR = join(ROOT, ".output/chrome-mv3");
const LOG_LINES = 3000;
const SCREENS = process.env.IPATLAS_SCREENSHOTS ?? tmpdir();
mkdirSync(SCREENS, { recursive: true });
const shot = (name: string) => join(SCREENS, `ext-${name}.png`);

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

/** What the extension has stored as its settings, read from the worker. */
function savedSettings(): Promise<Partial<Settings>> {
  return worker.evaluate(async () => {
    const api = (globalThis as unknown as { chrome: { storage: { local: { get(k: string): Promise<Record<string, unknown>> } } } }).chrome;
    return ((await api.storage.local.get("settings")).settings ?? {}) as Partial<Settings>;
  });
}

/**
 * Waits until the options page saved `expected` (it saves as you type, a field at a time) and the
 * worker, seeing the change, dropped its cached lookups. The tests close the options tab only
 * after this, as a person does: not within the milliseconds a save takes.
 */
async function workerApplied(expected: { serverUrl?: string; apiKey?: string }) {
  await expect.poll(savedSettings).toMatchObject(expected);
  const cached = () =>
    worker.evaluate(async () => {
      const api = (globalThis as unknown as { chrome: { storage: { local: { get(k: null): Promise<object> } } } }).chrome;
      return Object.keys(await api.storage.local.get(null)).filter((key) => key.startsWith("ip:")).length;
    });
  await expect.poll(cached).toBe(0);
}

/** Moves the pointer off any card first: an open card may cover the next line's address. */
async function hoverMark(page: Page, text: string | RegExp) {
  await page.mouse.move(0, 0);
  await expect.poll(() => card(page).count()).toBe(0);
  await page.locator("ipatlas-ip", { hasText: text }).hover();
}

function card(page: Page) {
  // Playwright's CSS locators pierce open shadow roots: this is the dialog inside ipatlas-card.
  return page.locator("ipatlas-card [role=dialog]");
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
  await expect.poll(() => status.textContent()).not.toMatch(/^$|Testing/);
  return status;
}

/**
 * The id of the tab showing `url`, from the extension's side: the newest such tab (Chrome's tab
 * ids only grow), so that a tab an earlier failed test left open on the same page is not taken.
 */
async function tabIdOf(url: string): Promise<number> {
  const id = await worker.evaluate(async (wanted) => {
    const api = (globalThis as unknown as { chrome: { tabs: { query(q: object): Promise<Array<{ id?: number; url?: string }>> } } }).chrome;
    const ids = (await api.tabs.query({})).filter((tab) => tab.url === wanted && tab.id !== undefined).map((tab) => tab.id!);
    return ids.length ? Math.max(...ids) : undefined;
  }, url);
  expect(id).toBeGreaterThan(0);
  return id!;
}

/**
 * The popup as a page, about the tab showing `url` (a toolbar popup cannot be opened headless),
 * once its sections have their answers: they grow as the answers arrive, and Playwright checks a
 * click's target on mousedown only, so a control moved down before mouseup loses the click. A
 * person, too, starts once the popup holds still.
 */
async function openPopupFor(url: string, extra = ""): Promise<Page> {
  const popup = await context.newPage();
  await popup.setViewportSize({ width: 400, height: 720 });
  await popup.goto(`chrome-extension://${extensionId}/popup.html?tabId=${await tabIdOf(url)}${extra}`);
  const settled = () =>
    popup
      .locator("main")
      .evaluate((main) => !main.hasAttribute("aria-busy") && !main.textContent!.includes("Looking up…"), undefined, { timeout: 250 })
      .catch(() => false);
  await expect.poll(settled).toBe(true);
  return popup;
}

/** The toolbar button's tooltip for a tab. */
function actionTitle(tabId: number) {
  return () =>
    worker.evaluate(
      (id) => (globalThis as unknown as { chrome: { action: { getTitle(d: object): Promise<string> } } }).chrome.action.getTitle({ tabId: id }),
      tabId,
    );
}

beforeAll(async () => {
  if (!existsSync(join(EXTENSION_DIR, "manifest.json"))) {
    throw new Error(`${EXTENSION_DIR} is missing: run \`npm run build:ext\` first (npm test does it in pretest)`);
  }
  server = await startServer();
  pages = await servePages({ "/demo": DEMO_PAGE, "/detect": DETECT_PAGE, "/log": logPage(LOG_LINES) });
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
  it("before setup: nothing is underlined, the popup says how to set up", async () => {
    const page = await context.newPage();
    await page.goto(`${pages.url}/demo`);
    await page.waitForTimeout(1500);
    expect(await page.locator("ipatlas-ip").count()).toBe(0);
    const popup = await openPopupFor(`${pages.url}/demo`);
    await expect.poll(textOf(popup.getByRole("status"))).toContain("IP Atlas is not set up yet, so nothing on pages is marked.");
    await popup.screenshot({ path: shot("popup-setup") });
    await popup.close();
    await page.close();
  }, 30_000);

  it("options: Test connection says plainly what is wrong, then connects with a key for the extension's origin", async () => {
    const page = await openOptions();

    let status = await testConnectionWith(page, "ipa_pk_not_a_real_key");
    await expect.poll(() => status.textContent()).toMatch(/does not know this API key/);

    // A key registered for another origin: the page shows this extension's origin and the command.
    const other = await server.cli<{ publicKey: string }>("website", "add", "--project", projectId, "--origin", "https://example.com");
    status = await testConnectionWith(page, other.publicKey);
    await expect.poll(() => status.textContent()).toMatch(/origin is not registered/);
    await expect.poll(textOf(status)).toContain(`ipatlas website add --project <PROJECT_ID> --origin ${origin}`);
    await expect.poll(() => page.getByRole("button", { name: "Copy the extension's origin" }).isVisible()).toBe(true);
    await page.screenshot({ path: shot("options-origin"), fullPage: true });

    const registered = await server.cli<{ publicKey: string }>("website", "add", "--project", projectId, "--origin", origin);
    expect(registered.publicKey).toMatch(/^ipa_pk_/);
    status = await testConnectionWith(page, registered.publicKey);
    await expect.poll(() => status.textContent()).toMatch(/Connected/);
    await expect.poll(textOf(status)).toContain("127.0.0.1");
    await page.screenshot({ path: shot("options-connected"), fullPage: true });
    await page.close();
  }, 60_000);

  it("hover cards: IPv4, IPv6 and private addresses, not in fields or editable regions; new content is picked up", async () => {
    const page = await context.newPage();
    await page.goto(`${pages.url}/demo`);
    const marks = page.locator("ipatlas-ip");
    await expect.poll(() => marks.count()).toBe(8);
    expect(await marks.evaluateAll((els) => els.map((el) => el.textContent))).toEqual([
      "8.8.8.8", "1.1.1.1", "2001:4860:4860::8888", "::ffff:9.9.9.9", "192.168.1.10", "fd00::1", "203.0.113.9", "8.8.4.4",
    ]);
    expect(await page.locator("#editor ipatlas-ip, #field ipatlas-ip").count()).toBe(0);
    await expect.poll(textOf(page.locator("#editor"))).toBe("editable 1.0.0.1 stays plain");

    const google = await serverAnswer("8.8.8.8");
    await hoverMark(page, /^8\.8\.8\.8$/);
    await expect.poll(textOf(card(page))).toContain("8.8.8.8");
    await expect.poll(textOf(card(page))).toContain(google.continent!.country!.name!);
    await expect.poll(textOf(card(page))).toContain(`AS${google.asn!.number}`);
    await page.screenshot({ path: shot("card-ipv4") });

    const v6 = await serverAnswer("2001:4860:4860::8888");
    await hoverMark(page, "2001:4860:4860::8888");
    await expect.poll(textOf(card(page))).toContain("2001:4860:4860::8888");
    await expect.poll(textOf(card(page))).toContain(v6.continent!.country!.name!);
    await expect.poll(textOf(card(page))).toContain(`AS${v6.asn!.number}`);
    await page.screenshot({ path: shot("card-ipv6") });

    await hoverMark(page, "192.168.1.10");
    await expect.poll(textOf(card(page))).toContain("Private / reserved address");
    await page.screenshot({ path: shot("card-private") });

    // Dark mode follows the system.
    await page.emulateMedia({ colorScheme: "dark" });
    const background = await card(page).evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(background).toBe("rgb(22, 27, 34)");
    await page.screenshot({ path: shot("card-dark") });
    await page.emulateMedia({ colorScheme: "light" });

    // Keyboard: focusing a mark shows its card; Escape hides it.
    await page.mouse.move(0, 0);
    await expect.poll(() => card(page).count()).toBe(0);
    await page.locator("ipatlas-ip", { hasText: "1.1.1.1" }).focus();
    await expect.poll(textOf(card(page))).toContain("1.1.1.1");
    await page.keyboard.press("Escape");
    await expect.poll(() => card(page).count()).toBe(0);

    // Content added later is scanned by the MutationObserver.
    await page.evaluate(() => (document.getElementById("later")!.textContent = "New login from 9.9.9.9"));
    await expect.poll(textOf(page.locator("#later ipatlas-ip"))).toBe("9.9.9.9");

    // Private and reserved addresses were decided locally and never sent.
    const list = await fetch(`${server.url}/conversions/list?ipSearch=192.168.0.0/16`, { headers: { "x-api-key": secretKey } });
    expect(((await list.json()) as { data: { totalCount: number } }).data.totalCount).toBe(0);
    await page.close();
  }, 60_000);

  it("looks up on interest only: scrolling a 3,000-line log costs nothing, a hover one lookup, cached across restarts", async () => {
    const before = await usedConversions();
    const page = await context.newPage();
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.goto(`${pages.url}/log`);
    await expect.poll(() => page.locator("ipatlas-ip").count(), { timeout: 30_000 }).toBe(LOG_LINES);
    for (let y = 0, height = await page.evaluate(() => document.body.scrollHeight); y < height; y += 600) {
      await page.evaluate((top) => window.scrollTo(0, top), y);
      await page.waitForTimeout(20);
    }
    await page.waitForTimeout(1000);
    expect(await usedConversions()).toBe(before);

    // A pointer passing over addresses on its way somewhere is no interest: the events of a pointer
    // crossing five marks, 30 ms on each. They are timed by the page's own timers: a mark's step
    // falls due before its hover intent (150 ms) however late the page runs them, where a step of
    // real moves, each a round trip to the browser, can outlast it on a loaded machine.
    const rows = page.locator("ipatlas-ip");
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.evaluate(async () => {
      const marks = [...document.querySelectorAll("ipatlas-ip")].slice(0, 5);
      const pointer = (type: string, target: Element, relatedTarget: Element | null) =>
        target.dispatchEvent(new MouseEvent(type, { bubbles: true, composed: true, relatedTarget }));
      for (const [i, mark] of marks.entries()) {
        pointer("mouseover", mark, marks[i - 1] ?? document.body);
        await new Promise((resolve) => setTimeout(resolve, 30));
        pointer("mouseout", mark, marks[i + 1] ?? document.body);
      }
      pointer("mouseover", document.body, marks.at(-1)!);
    });
    await page.waitForTimeout(600);
    expect(await usedConversions()).toBe(before);
    expect(await card(page).count()).toBe(0);

    // Resting on one is: exactly one lookup, and the card shows it.
    const ip = await rows.nth(2).textContent();
    await hoverMark(page, ip!);
    await expect.poll(textOf(card(page))).toContain("Country");
    await page.screenshot({ path: shot("log-hover") });
    expect(await usedConversions()).toBe(before + 1);

    // Cached in extension storage: a stopped and restarted service worker answers without a request.
    const cdp = await context.newCDPSession(page);
    const workerRuns = async () =>
      ((await cdp.send("Target.getTargets")).targetInfos as Array<{ type: string; url: string }>).some(
        (target) => target.type === "service_worker" && target.url.startsWith(origin),
      );
    await cdp.send("ServiceWorker.enable");
    await cdp.send("ServiceWorker.stopAllWorkers");
    await expect.poll(workerRuns).toBe(false);
    await page.reload();
    await expect.poll(() => page.locator("ipatlas-ip").count(), { timeout: 30_000 }).toBe(LOG_LINES);
    await hoverMark(page, ip!);
    await expect.poll(textOf(card(page))).toContain("Country");
    expect(await workerRuns()).toBe(true); // woken by the lookup
    await cdp.detach();
    expect(await usedConversions()).toBe(before + 1);

    // Prefetching what is in view is a setting, off by default, and says that it spends quota.
    const options = await openOptions();
    const prefetch = options.getByLabel("Look up addresses as they scroll into view");
    expect(await prefetch.isChecked()).toBe(false);
    await expect.poll(textOf(options.getByText(/counts against your project's monthly quota/))).toContain("Off by default");
    await prefetch.check();
    await page.reload();
    await expect.poll(usedConversions).toBeGreaterThan(before + 10);
    await prefetch.uncheck();
    await expect.poll(savedSettings).toMatchObject({ prefetchVisible: false });
    await options.close();
    await page.close();
  }, 120_000);

  it("popup: own address, the tab's server address and a per-site switch", async () => {
    const page = await context.newPage();
    await page.goto(`${pages.url}/demo`);
    await expect.poll(() => page.locator("ipatlas-ip").count()).toBeGreaterThan(0);
    const popup = await openPopupFor(`${pages.url}/demo`);
    const own = popup.getByRole("region", { name: "Your address" });
    await expect.poll(textOf(own)).toContain("127.0.0.1");
    const site = popup.getByRole("region", { name: /This site/ });
    await expect.poll(textOf(site)).toContain("127.0.0.1"); // the page's server, from webRequest details.ip
    await expect.poll(textOf(site)).toContain("Private / reserved address");
    await popup.screenshot({ path: shot("popup") });

    // Turning the site off stops the content script there.
    await popup.getByLabel("On for 127.0.0.1").uncheck();
    await page.reload();
    await page.waitForTimeout(1000);
    expect(await page.locator("ipatlas-ip").count()).toBe(0);
    await popup.getByLabel("On for 127.0.0.1").check();
    await page.reload();
    await expect.poll(() => page.locator("ipatlas-ip").count()).toBe(8);
    await popup.close();
    await page.close();
  }, 60_000);
  it("popup: lookup box, copy buttons, RDAP/BGP links, the quota left; services are editable in the options", async () => {
    const page = await context.newPage();
    await page.goto(`${pages.url}/demo`);
    const google = await serverAnswer("8.8.8.8");
    const popup = await openPopupFor(`${pages.url}/demo`);
    const lookup = popup.getByRole("region", { name: "Look up an address" });
    await popup.getByLabel("IP address or CIDR block").fill("garbage");
    await popup.getByRole("button", { name: "Look up", exact: true }).click();
    await expect.poll(textOf(lookup)).toContain("No IP address in “garbage”.");
    await popup.getByLabel("IP address or CIDR block").fill(" [8.8.8.8] ");
    await popup.getByRole("button", { name: "Look up", exact: true }).click();
    await expect.poll(textOf(lookup)).toContain(google.continent!.country!.name!);
    await expect.poll(textOf(lookup)).toContain(`AS${google.asn!.number}`);
    const links = lookup.getByRole("navigation", { name: "More about 8.8.8.8" }).getByRole("link");
    expect(await links.evaluateAll((els) => els.map((a) => [a.textContent, (a as HTMLAnchorElement).href]))).toEqual([
      ["RDAP (rdap.org)", "https://rdap.org/ip/8.8.8.8"],
      ["BGP (bgp.he.net)", "https://bgp.he.net/ip/8.8.8.8"],
      ["RIPEstat", "https://stat.ripe.net/8.8.8.8"],
    ]);
    expect(await popup.getByRole("button", { name: "Copy 8.8.8.8" }).count()).toBe(1);
    expect(await popup.getByRole("button", { name: "Copy 127.0.0.1" }).count()).toBeGreaterThan(0);
    await expect.poll(textOf(popup.getByLabel("Quota"))).toMatch(/^[\d,]+ of 1,000 lookups left this month \(until /);
    await popup.screenshot({ path: shot("popup-lookup"), fullPage: true });
    await popup.close();

    // A user's own service, Flagfox-style: a URL template with {ip}.
    const options = await openOptions();
    await options.getByLabel("Name", { exact: true }).fill("Shodan");
    await options.getByLabel("URL with {ip}").fill("https://www.shodan.io/host/");
    await options.getByRole("button", { name: "Add service" }).click();
    await expect.poll(textOf(options.getByRole("alert"))).toContain("{ip}");
    await options.getByLabel("URL with {ip}").fill("https://www.shodan.io/host/{ip}");
    await options.getByRole("button", { name: "Add service" }).click();
    await options.getByRole("button", { name: "Remove RIPEstat" }).click();
    await expect.poll(async () => (await savedSettings()).services?.map((service) => service.name)).toEqual([
      "RDAP (rdap.org)",
      "BGP (bgp.he.net)",
      "Shodan",
    ]);
    await options.screenshot({ path: shot("options-services"), fullPage: true });
    await options.close();

    // The context menu's fallback window: the popup's lookup box with the text filled in.
    const lookupWindow = await context.newPage();
    await lookupWindow.setViewportSize({ width: 400, height: 720 });
    await lookupWindow.goto(`chrome-extension://${extensionId}/popup.html?q=${encodeURIComponent("2001:4860:4860::8888")}`);
    const found = lookupWindow.getByRole("region", { name: "Look up an address" });
    await expect.poll(textOf(found)).toContain("AS");
    expect(await found.getByRole("link").evaluateAll((els) => els.map((a) => a.textContent))).toEqual(["RDAP (rdap.org)", "BGP (bgp.he.net)", "Shodan"]);
    expect(await found.getByRole("link", { name: "Shodan" }).getAttribute("href")).toBe("https://www.shodan.io/host/2001%3A4860%3A4860%3A%3A8888");
    await lookupWindow.close();
    await page.close();
  }, 60_000);

  it("toolbar: the tooltip names the site's country and server address, per tab, across reloads and in-page navigations", async () => {
    const v6pages = await servePages({ "/demo": DEMO_PAGE }, "::1");
    try {
      const page = await context.newPage();
      await page.goto(`${pages.url}/demo`);
      const tabId = await tabIdOf(`${pages.url}/demo`);
      await expect.poll(actionTitle(tabId)).toBe("Private / reserved address · 127.0.0.1 (IPv4)");
      await page.reload();
      await expect.poll(actionTitle(tabId)).toBe("Private / reserved address · 127.0.0.1 (IPv4)");

      const v6 = await context.newPage();
      await v6.goto(`${v6pages.url}/demo`);
      const v6Tab = await tabIdOf(`${v6pages.url}/demo`);
      await expect.poll(actionTitle(v6Tab)).toBe("Private / reserved address · ::1 (IPv6)");
      expect(await actionTitle(tabId)()).toBe("Private / reserved address · 127.0.0.1 (IPv4)");

      // A public server cannot be reached on loopback: the address webRequest reported is set as
      // if the page had come from 8.8.8.8, then the page navigates in-page (history API).
      const before = await usedConversions();
      const google = await serverAnswer("8.8.8.8");
      await worker.evaluate(
        ([id, url]) => (globalThis as any).chrome.storage.session.set({ [`tab:${id}`]: { url, ip: "8.8.8.8" } }),
        [tabId, `${pages.url}/demo`] as const,
      );
      await page.evaluate(() => history.pushState({}, "", "/demo?view=2"));
      await expect.poll(actionTitle(tabId)).toBe(`${google.continent!.country!.name} · 8.8.8.8 (IPv4)`);
      await page.evaluate(() => history.pushState({}, "", "/demo?view=3"));
      await page.waitForTimeout(300);
      expect(await usedConversions()).toBeLessThanOrEqual(before + 1); // one lookup per server address, cached

      // The flag as drawn into the icon (the offscreen document's bitmaps), scaled up to look at.
      const bitmaps = await worker.evaluate(
        (url) => (globalThis as any).chrome.runtime.sendMessage({ type: "draw-flag", url }),
        google.continent!.country!.flag!.img!,
      );
      const icon = await context.newPage();
      await icon.setContent(`<body style="margin:0;background:#dfe1e5"><canvas id="c" width="32" height="32" style="width:256px;height:256px;image-rendering:pixelated;margin:16px"></canvas></body>`);
      const opaque = await icon.evaluate((data: number[]) => {
        const canvas = document.getElementById("c") as HTMLCanvasElement;
        canvas.getContext("2d")!.putImageData(new ImageData(new Uint8ClampedArray(data), 32, 32), 0, 0);
        return data.filter((_, i) => i % 4 === 3 && data[i]! > 0).length;
      }, (bitmaps as Array<{ size: number; data: number[] }>).find((b) => b.size === 32)!.data);
      expect(opaque).toBe(32 * 24); // a 4:3 flag across the full width
      await icon.screenshot({ path: shot("toolbar-flag"), clip: { x: 0, y: 0, width: 290, height: 290 } });
      await icon.close();
      await v6.close();
      await page.close();
    } finally {
      await v6pages.close();
    }
  }, 60_000);

  it("detection: versions are not addresses, a CIDR block shows its network and size, IPv6 in brackets and mapped", async () => {
    const page = await context.newPage();
    await page.goto(`${pages.url}/detect`);
    const marks = page.locator("ipatlas-ip");
    await expect.poll(() => marks.count()).toBe(7);
    expect(await marks.evaluateAll((els) => els.map((el) => el.textContent))).toEqual([
      "45.33.0.0/16", "2001:db8::/32", "2a00:1450:4001::1", "::ffff:8.8.8.8", "1.1.1.1", "8.8.4.4", "9.9.9.9",
    ]);
    expect(await page.locator("#version ipatlas-ip").count()).toBe(0);
    await hoverMark(page, "45.33.0.0/16");
    await expect.poll(textOf(card(page))).toContain("Network of 65,536 addresses");
    await expect.poll(textOf(card(page))).toContain("Country");
    expect(await card(page).getByRole("link", { name: "RDAP (rdap.org)" }).getAttribute("href")).toBe("https://rdap.org/ip/45.33.0.0%2F16");
    await page.screenshot({ path: shot("card-cidr") });
    await hoverMark(page, "2001:db8::/32");
    await expect.poll(textOf(card(page))).toContain("Private / reserved address");
    await page.close();
  }, 30_000);

  it("keyboard and screen readers: one tab stop for all addresses, arrows between them, Enter into the card, Escape back", async () => {
    const page = await context.newPage();
    await page.goto(`${pages.url}/detect`);
    await expect.poll(() => page.locator("ipatlas-ip").count()).toBe(7);
    const focused = () => page.evaluate(() => document.activeElement?.textContent ?? null);
    await page.keyboard.press("Tab");
    expect(await focused()).toBe("45.33.0.0/16");
    expect(await page.locator("ipatlas-ip[tabindex='0']").count()).toBe(1);
    await expect.poll(() => card(page).getAttribute("aria-label", { timeout: 500 }).catch(() => null)).toBe("IP address 45.33.0.0/16");
    expect(await page.locator("ipatlas-ip", { hasText: "45.33.0.0/16" }).getAttribute("role")).toBe("button");
    expect(await page.locator("ipatlas-ip", { hasText: "45.33.0.0/16" }).getAttribute("aria-expanded")).toBe("true");

    await page.keyboard.press("ArrowRight");
    expect(await focused()).toBe("2001:db8::/32");
    await page.keyboard.press("End");
    expect(await focused()).toBe("9.9.9.9");
    await page.keyboard.press("Home");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowDown");
    expect(await focused()).toBe("2a00:1450:4001::1");

    // Tab leaves the addresses at once: the next stop is the link (whose address has no stop of its own).
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.localName)).toBe("a");
    await expect.poll(() => card(page).getAttribute("aria-label", { timeout: 500 }).catch(() => null)).toBe("IP address 1.1.1.1");
    await page.keyboard.press("Shift+Tab");
    expect(await focused()).toBe("2a00:1450:4001::1"); // the roving stop remembers where you were

    // Enter moves into the card: Copy, then the service links; Escape closes and returns.
    await expect.poll(textOf(card(page))).toContain("Country");
    await page.keyboard.press("Enter");
    const inCard = () => page.evaluate(() => document.querySelector("ipatlas-card")!.shadowRoot!.activeElement?.textContent ?? null);
    await expect.poll(inCard).toBe("Copy");
    await page.keyboard.press("Tab");
    expect(await inCard()).toBe("RDAP (rdap.org)");
    await page.screenshot({ path: shot("card-keyboard") });
    await page.keyboard.press("Escape");
    await expect.poll(() => card(page).count()).toBe(0);
    expect(await focused()).toBe("2a00:1450:4001::1");
    await page.close();
  }, 30_000);

  it("context menu and shortcut: the card opens next to the selected address", async () => {
    const page = await context.newPage();
    await page.goto(`${pages.url}/detect`);
    await expect.poll(() => page.locator("ipatlas-ip").count()).toBe(7);
    const tabId = await tabIdOf(`${pages.url}/detect`);
    // What the worker sends on "Look up with IP Atlas" (selection text) and on the shortcut (no text:
    // the page's selection); Chromium's menus and browser shortcuts cannot be driven headless.
    const ask = (message: object) =>
      worker.evaluate(([id, m]) => (globalThis as any).chrome.tabs.sendMessage(id, m), [tabId, message] as const);
    expect(await ask({ type: "show-lookup", text: "from 8.8.8.8 port 22" })).toEqual({ shown: true, text: "from 8.8.8.8 port 22" });
    await expect.poll(textOf(card(page))).toContain("8.8.8.8");
    await page.keyboard.press("Escape");
    await page.evaluate(() => {
      const range = document.createRange();
      range.selectNodeContents(document.getElementById("picked")!);
      getSelection()!.removeAllRanges();
      getSelection()!.addRange(range);
    });
    expect(await ask({ type: "show-lookup" })).toEqual({ shown: true, text: "9.9.9.9" });
    await expect.poll(textOf(card(page))).toContain("9.9.9.9");
    await expect.poll(() => page.evaluate(() => document.querySelector("ipatlas-card")!.shadowRoot!.activeElement?.textContent ?? null)).toBe("Copy");
    await page.screenshot({ path: shot("card-selection") });
    // Nothing to show: the worker then opens the lookup box with the text.
    expect(await ask({ type: "show-lookup", text: "example.com" })).toEqual({ shown: false, text: "example.com" });
    const manifest = await worker.evaluate(() => (globalThis as any).chrome.runtime.getManifest());
    expect(manifest.commands["lookup-selection"].suggested_key.default).toBe("Alt+Shift+I");
    expect(manifest.permissions).toContain("contextMenus");
    await page.close();
  }, 30_000);

  it("after a 429 the worker waits for the server's reset time instead of asking again", async () => {
    const limited = await startServer({ env: { IPATLAS_PUBLIC_RATE_LIMIT: "2" } });
    const counter = await countingProxy(limited.url);
    try {
      const project = await limited.cli<{ project: { id: string } }>("project", "create", "--name", "Limited");
      const site = await limited.cli<{ publicKey: string }>("website", "add", "--project", project.project.id, "--origin", origin);
      const options = await openOptions();
      await options.getByLabel("Server URL").fill(counter.url);
      await options.getByLabel("API key").fill(site.publicKey);
      await workerApplied({ serverUrl: counter.url, apiKey: site.publicKey });
      await options.close();

      const page = await context.newPage();
      await page.goto(`${pages.url}/demo`);
      await hoverMark(page, /^8\.8\.8\.8$/);
      await expect.poll(textOf(card(page))).toContain("Country");
      const later = page.locator("#later");
      // Each newly hovered address is one more POST /convert; the third is refused.
      for (const ip of ["5.5.5.5", "6.6.6.6"]) {
        await page.evaluate((text) => (document.getElementById("later")!.textContent = `New login from ${text}`), ip);
        await expect.poll(() => later.locator("ipatlas-ip").count()).toBe(1);
        await hoverMark(page, ip);
        await expect.poll(textOf(card(page))).not.toContain("Looking up");
      }
      await expect.poll(textOf(card(page))).toMatch(/Too many lookups in a short time: the extension pauses\. Lookups resume in about 1 minute\./);
      const sent = counter.count();
      expect(sent).toBe(3);

      // More hovers and new addresses: answered from the back-off, nothing reaches the server.
      for (const ip of ["7.7.7.7", "6.6.6.6", "4.4.4.4"]) {
        await page.evaluate((text) => (document.getElementById("later")!.textContent = `New login from ${text}`), ip);
        await expect.poll(() => later.locator("ipatlas-ip").count()).toBe(1);
        await hoverMark(page, ip);
        await expect.poll(textOf(card(page))).toContain("Too many lookups");
      }
      await page.screenshot({ path: shot("card-429") });
      expect(counter.count()).toBe(sent);
      await page.close();
    } finally {
      const options = await openOptions();
      await options.getByLabel("Server URL").fill(server.url);
      await workerApplied({ serverUrl: server.url });
      await options.close();
      await counter.close();
      await limited.stop();
    }
  }, 90_000);

  it("says how much quota is left before it runs out", async () => {
    const nearly = await server.cli<{ project: { id: string }; secretKey: string }>("project", "create", "--name", "Nearly used");
    const site = await server.cli<{ publicKey: string }>("website", "add", "--project", nearly.project.id, "--origin", origin);
    // 950 of the free plan's 1,000 spent elsewhere.
    const ips = Array.from({ length: 950 }, (_, i) => `81.${i >> 8}.${i & 255}.9`);
    const spent = await fetch(`${server.url}/convert`, {
      method: "POST",
      headers: { "x-api-key": nearly.secretKey, "content-type": "application/json" },
      body: JSON.stringify({ ips }),
    });
    expect(spent.status).toBe(200);
    const options = await openOptions();
    await options.getByLabel("API key").fill(site.publicKey);
    await workerApplied({ apiKey: site.publicKey });
    await options.close();

    const page = await context.newPage();
    await page.goto(`${pages.url}/demo`);
    await hoverMark(page, /^1\.1\.1\.1$/);
    await expect.poll(textOf(card(page))).toContain("49 of 1,000 lookups left this month");
    await page.screenshot({ path: shot("card-quota-low") });
    await page.close();
  }, 60_000);

  it.each([
    ["de", "IP Atlas ist noch nicht eingerichtet", "Mit IP Atlas nachschlagen"],
    ["ja", "IP Atlas はまだ設定されていないため", "IP Atlas で調べる"],
  ])("speaks the browser's language: %s", async (locale, setupHint, menuTitle) => {
    const other = await launchWithExtension(EXTENSION_DIR, { locale });
    try {
      const otherWorker = other.context.serviceWorkers()[0]!;
      expect(await otherWorker.evaluate(() => (globalThis as any).chrome.i18n.getMessage("menuLookup"))).toBe(menuTitle);
      const popup = await other.context.newPage();
      await popup.setViewportSize({ width: 400, height: 300 });
      await popup.goto(`chrome-extension://${other.extensionId}/popup.html`);
      await expect.poll(textOf(popup.getByRole("status"))).toContain(setupHint);
      await popup.screenshot({ path: shot(`popup-${locale}`) });
      const options = await other.context.newPage();
      await options.goto(`chrome-extension://${other.extensionId}/options.html`);
      await expect.poll(textOf(options.locator("body"))).toContain(locale === "de" ? "Nachschlagedienste" : "検索サービス");
      await options.screenshot({ path: shot(`options-${locale}`), fullPage: true });
    } finally {
      await other.context.close();
    }
  }, 60_000);
});
