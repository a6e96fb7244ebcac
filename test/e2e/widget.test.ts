/**
 * The embeddable widget end to end: the real server (bin/ipatlas.js serve), the built widget it
 * serves, test pages from a second loopback HTTP server (the website's origin) and Debian's
 * Chromium. Screenshots go to /tmp/ipatlas-widget-*.png.
 */
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IpObject } from "../../lib/schemas/ip-object.js";
import { MESSAGES } from "../../lib/schemas/messages.js";
import { buildWidget } from "../../widget/build.js";
import { widgetSnippet } from "../../server/widget/snippet.js";
import type { WidgetManifest } from "../../server/widget/manifest.js";
import { launchBrowser } from "../helpers/chromium.js";
import { startServer, type TestServer } from "../helpers/server.js";

const FIXED_IP = "8.8.8.8";
/** tests that run several CLI processes or take several screenshots; the machine is shared */
const CLI_AND_SCREENSHOTS = 120_000;
/** the visitor's address as the one trusted proxy reports it */
const VISITOR_IP = "81.2.69.142";

/** A website: serves the pages a test puts on it, from its own loopback origin. */
interface Site {
  origin: string;
  port: number;
  page(path: string, html: string, csp?: string): string;
  close(): Promise<void>;
}

// Loaded before the widget: records its events and any CSP violation for the test to read.
const RECORDER_JS = `
window.__ipatlas = { events: [], violations: [] };
for (const type of ["ipatlas:load", "ipatlas:error"]) {
  document.addEventListener(type, (event) => window.__ipatlas.events.push({ type, detail: event.detail, tag: event.target.tagName }));
}
document.addEventListener("securitypolicyviolation", (event) => window.__ipatlas.violations.push(event.violatedDirective + " " + event.blockedURI));
`;

async function startSite(): Promise<Site> {
  const pages = new Map<string, { html: string; csp?: string }>();
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url!, "http://site").pathname;
    if (path === "/recorder.js") return res.writeHead(200, { "content-type": "text/javascript" }).end(RECORDER_JS);
    const page = pages.get(path);
    if (!page) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", ...(page.csp ? { "content-security-policy": page.csp } : {}) });
    res.end(page.html);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    port,
    page(path, html, csp) {
      pages.set(path, { html, csp });
      return origin + path;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const html = (body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><script src="/recorder.js"></script></head><body>${body}</body></html>`;

let api: TestServer;
let site: Site;
let stranger: Site;
let browser: Browser;
let manifest: WidgetManifest;
let publicKey: string;
let secretKey: string;

/** What the API itself says about an address (secret key, no Origin): the widget must show the same. */
async function truth(ip: string): Promise<IpObject> {
  const res = await fetch(`${api.url}/convert?ip=${encodeURIComponent(ip)}`, { headers: { "x-api-key": secretKey } });
  const body = (await res.json()) as { data: IpObject };
  expect(body.data.continent?.country?.code, `test address ${ip} needs a known country`).toBeTruthy();
  return body.data;
}

interface Watched {
  page: Page;
  context: BrowserContext;
  /** GET /convert requests the page sent to the API */
  lookups: string[];
  /** console warnings */
  warnings: string[];
}

async function open(url: string, prepare?: (context: BrowserContext) => Promise<unknown>): Promise<Watched> {
  const context = await browser.newContext({ viewport: { width: 640, height: 360 } });
  context.setDefaultTimeout(10_000); // fail with Playwright's message before the test times out
  await prepare?.(context);
  const page = await context.newPage();
  const lookups: string[] = [];
  const warnings: string[] = [];
  page.on("request", (request) => {
    if (request.method() === "GET" && request.url().startsWith(`${api.url}/convert`)) lookups.push(request.url());
  });
  page.on("console", (message) => {
    if (message.type() === "warning") warnings.push(message.text());
  });
  await page.goto(url);
  return { page, context, lookups, warnings };
}

type Recorded = { events: Array<{ type: string; detail: any; tag: string }>; violations: string[] };
const recorded = (page: Page) => page.evaluate(() => (window as unknown as { __ipatlas: Recorded }).__ipatlas);
const waitForEvents = (page: Page, count: number) =>
  page.waitForFunction((n) => (window as unknown as { __ipatlas: Recorded }).__ipatlas.events.length >= n, count);
const regionName = (page: Page, code: string, lang = "en") =>
  page.evaluate(([c, l]) => new Intl.DisplayNames([l!], { type: "region" }).of(c!)!, [code, lang]);

beforeAll(async () => {
  manifest = await buildWidget();
  [api, site, stranger, browser] = await Promise.all([
    startServer({ env: { IPATLAS_TRUST_PROXY: "1", IPATLAS_PUBLIC_RATE_LIMIT: "0" } }),
    startSite(),
    startSite(),
    launchBrowser(),
  ]);
  const created = await api.cli("project", "create", "--name", "Widget e2e", "--plan", "scale");
  secretKey = created.secretKey;
  // Only `site` is registered; `stranger` is another origin on the same machine.
  const website = await api.cli("website", "add", "--project", created.project.id, "--origin", `127.0.0.1:${site.port}`);
  publicKey = website.publicKey;
});

afterAll(async () => {
  await browser?.close();
  await Promise.all([api?.stop(), site?.close(), stranger?.close()]);
});

describe("<ipatlas-widget> in Chromium", () => {
  it("shows flag and country for a fixed address, one request for two widgets", async () => {
    const expected = await truth(FIXED_IP);
    const url = site.page(
      "/fixed.html",
      html(
        `<p><ipatlas-widget ip="${FIXED_IP}"></ipatlas-widget></p>` +
          `<p><ipatlas-widget ip="${FIXED_IP}" theme="dark" fields="flag,country,asn,ip"></ipatlas-widget></p>` +
          `<script async src="${api.url}/widget.js" data-key="${publicKey}"></script>`,
      ),
    );
    // The answer is held back until the loading state has been seen (a fixed second was not always
    // enough for the page to open on a busy machine).
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const { page, context, lookups, warnings } = await open(url, (ctx) =>
      ctx.route(`${api.url}/convert*`, async (route) => {
        await released;
        await route.continue();
      }),
    );
    const first = page.locator("ipatlas-widget").first();
    await expect.poll(() => first.locator('[part="box"]').getAttribute("data-status")).toBe("loading");
    release();

    await waitForEvents(page, 2);
    const { events, violations } = await recorded(page);
    expect(events.map((e) => e.type)).toEqual(["ipatlas:load", "ipatlas:load"]);
    expect(events[0]!.tag).toBe("IPATLAS-WIDGET");
    expect(events[0]!.detail.ip).toBe(FIXED_IP);
    expect(events[0]!.detail.continent.country.code).toBe(expected.continent!.country!.code);
    expect(events[0]!.detail.asn).toEqual(expected.asn);

    const country = await regionName(page, expected.continent!.country!.code!);
    await expect.poll(() => first.locator('[part="place"]').textContent()).toContain(country);
    const flag = first.locator('img[part="flag"]');
    expect(await flag.getAttribute("src")).toBe(expected.continent!.country!.flag!.img);
    await expect.poll(() => flag.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    expect(await first.locator('[role="status"]').count()).toBe(1);
    expect(await first.locator('[part="attribution"]').getAttribute("href")).toBe("https://db-ip.com");

    const second = page.locator("ipatlas-widget").nth(1);
    expect(await second.locator('[part="network"]').textContent()).toBe(`AS${expected.asn!.number} ${expected.asn!.name} · ${FIXED_IP}`);
    expect(await second.locator('[part="box"]').getAttribute("class")).toContain("dark");

    expect(lookups).toEqual([`${api.url}/convert?ip=${FIXED_IP}`]);
    expect(warnings).toEqual([]);
    expect(violations).toEqual([]);
    await page.screenshot({ path: "/tmp/ipatlas-widget-fixed.png" });
    await context.close();
  });

  it("shows the visitor's own location (one trusted proxy hop) and asks once per session", async () => {
    const expected = await truth(VISITOR_IP);
    const url = site.page(
      "/visitor.html",
      html(`<ipatlas-widget lang="de"></ipatlas-widget><script async src="${api.url}/widget.js" data-key="${publicKey}"></script>`),
    );
    // The proxy in front of the server appends the visitor's address.
    const { page, context, lookups } = await open(url, (ctx) =>
      ctx.route(`${api.url}/convert*`, (route) =>
        route.continue({ headers: { ...route.request().headers(), "x-forwarded-for": VISITOR_IP } }),
      ),
    );
    await waitForEvents(page, 1);
    const [event] = (await recorded(page)).events;
    expect(event!.type).toBe("ipatlas:load");
    expect(event!.detail.ip).toBe(VISITOR_IP);
    expect(event!.detail.continent.country.code).toBe(expected.continent!.country!.code);
    const country = await regionName(page, expected.continent!.country!.code!, "de");
    expect(await page.locator('ipatlas-widget [part="place"]').textContent()).toContain(country);
    expect(lookups).toEqual([`${api.url}/convert`]);
    await page.screenshot({ path: "/tmp/ipatlas-widget-visitor.png" });

    // Same tab, next page view: answered from sessionStorage, no second conversion.
    await page.reload();
    await waitForEvents(page, 1);
    expect((await recorded(page)).events[0]!.detail.ip).toBe(VISITOR_IP);
    expect(lookups).toHaveLength(1);
    await context.close();
  });

  it("names the origin to register on an unregistered origin: one warning, no further requests", async () => {
    const url = stranger.page(
      "/stranger.html",
      html(
        `<ipatlas-widget></ipatlas-widget><ipatlas-widget ip="${FIXED_IP}"></ipatlas-widget><ipatlas-widget></ipatlas-widget>` +
          `<script async src="${api.url}/widget.js" data-key="${publicKey}"></script>`,
      ),
    );
    const { page, context, lookups, warnings } = await open(url);
    await waitForEvents(page, 3);
    // Give a retry loop, if there were one, time to show itself.
    await page.waitForTimeout(1500);
    const { events } = await recorded(page);
    expect(events.map((e) => e.type)).toEqual(["ipatlas:error", "ipatlas:error", "ipatlas:error"]);
    // the refusal is readable by the refused page: the envelope names its origin
    expect(events[0]!.detail).toMatchObject({ success: false, code: 401, message: MESSAGES.originNotAllowed, data: { origin: stranger.origin } });

    expect(lookups).toHaveLength(2); // one per distinct address (visitor, 8.8.8.8), then nothing
    expect(warnings.filter((w) => w.includes("IP Atlas widget"))).toHaveLength(1);
    for (const widget of await page.locator("ipatlas-widget").all()) {
      expect(await widget.locator('[part="error"]').textContent()).toBe("Not enabled for this site");
      expect(await widget.locator('[part="box"]').getAttribute("data-reason")).toBe("origin");
      expect(await widget.locator(".sub").textContent()).toBe(
        `Register ${stranger.origin} for this key: ipatlas website add --project ID --origin 127.0.0.1:${stranger.port}`,
      );
    }
    expect(warnings.find((w) => w.includes("IP Atlas widget"))).toContain(stranger.origin);
    await page.screenshot({ path: "/work/notes/screens/web-widget-refused-origin.png" });
    await context.close();
  });

  it("renders under a strict CSP without unsafe-inline, from the pinned SRI snippet, placed after its script", async () => {
    const csp = [
      "default-src 'none'",
      "script-src 'self' " + api.url,
      "connect-src " + api.url,
      "img-src " + api.url,
      "style-src 'none'",
      "base-uri 'none'",
    ].join("; ");
    // The pasted snippet without its element (so the script places one), settings as data-*.
    const snippet = widgetSnippet({ baseUrl: api.url, publicKey, manifest })
      .replace("<ipatlas-widget></ipatlas-widget>\n", "")
      .replace("data-key=", `data-ip="${FIXED_IP}" data-theme="dark" data-key=`);
    const url = site.page("/csp.html", html(`<h1>Strict CSP</h1><div id="slot">${snippet}</div>`), csp);
    const { page, context, warnings } = await open(url);
    await waitForEvents(page, 1);
    const { events, violations } = await recorded(page);
    expect(events[0]!.type).toBe("ipatlas:load");
    expect(events[0]!.detail.ip).toBe(FIXED_IP);
    expect(violations).toEqual([]);
    expect(warnings).toEqual([]);
    // The element was created right after the script tag, and its stylesheet applies.
    expect(await page.evaluate(() => document.querySelector("#slot script + ipatlas-widget") !== null)).toBe(true);
    const widget = page.locator("ipatlas-widget");
    const box = widget.locator('[part="box"]');
    expect(await box.evaluate((el) => getComputedStyle(el).borderTopLeftRadius)).toBe("10px");
    expect(await box.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe("rgb(29, 33, 39)"); // dark, from data-theme
    expect(await widget.locator('img[part="flag"]').evaluate((img: HTMLImageElement) => img.naturalWidth > 0)).toBe(true);
    await page.screenshot({ path: "/tmp/ipatlas-widget-csp.png" });
    await context.close();
  });

  it("opens the body when its script sits in <head> and the page has no element", async () => {
    const url = site.page(
      "/head.html",
      `<!doctype html><html lang="en"><head><script src="/recorder.js"></script>` +
        `<script async src="${api.url}/widget.js" data-key="${publicKey}" data-ip="${FIXED_IP}"></script></head>` +
        `<body><p>content</p></body></html>`,
    );
    const { page, context } = await open(url);
    await waitForEvents(page, 1);
    expect(await page.evaluate(() => document.body.firstElementChild?.tagName)).toBe("IPATLAS-WIDGET");
    expect(await page.evaluate(() => document.head.querySelector("ipatlas-widget"))).toBeNull();
    await context.close();
  });

  it("follows attribute changes and refuses a secret key without sending it", async () => {
    const url = site.page(
      "/attributes.html",
      html(
        `<ipatlas-widget id="a" ip="${FIXED_IP}" fields="flag,country"></ipatlas-widget>` +
          `<ipatlas-widget id="secret" key="ipa_sk_not_for_pages"></ipatlas-widget>` +
          `<script async src="${api.url}/widget.js" data-key="${publicKey}"></script>`,
      ),
    );
    const { page, context, lookups, warnings } = await open(url);
    await waitForEvents(page, 2);
    const secret = (await recorded(page)).events.find((e) => e.type === "ipatlas:error")!;
    expect(secret.detail.message).toMatch(/secret key must never/);
    expect(warnings.filter((w) => w.includes("secret key"))).toHaveLength(1);
    expect(lookups.every((u) => !u.includes("ipa_sk"))).toBe(true);

    const widget = page.locator("#a");
    expect(await widget.locator('[part="network"]').count()).toBe(0);
    await widget.evaluate((el, ip) => {
      el.setAttribute("fields", "flag,asn,ip");
      el.setAttribute("theme", "dark");
      el.setAttribute("ip", ip);
    }, VISITOR_IP);
    await waitForEvents(page, 3);
    const last = (await recorded(page)).events.at(-1)!;
    expect(last.detail.ip).toBe(VISITOR_IP);
    expect(await widget.locator('[part="network"]').textContent()).toContain(VISITOR_IP);
    expect(await widget.locator('[part="box"]').getAttribute("class")).toContain("dark");
    expect(lookups).toEqual([`${api.url}/convert?ip=${FIXED_IP}`, `${api.url}/convert?ip=${encodeURIComponent(VISITOR_IP)}`]);
    await context.close();
  });

  it("prints a ready-to-paste snippet whose SRI matches the served script", async () => {
    const { projects } = await api.cli("project", "list");
    const project = projects.find((p: { name: string }) => p.name === "Widget e2e");
    const { websites } = await api.cli("website", "list", "--project", project.id);
    const out = await api.cli("widget", "snippet", "--project", project.id, "--website", websites[0].id, "--key", publicKey);
    expect(out.snippet).toContain(`data-key="${publicKey}"`);
    expect(out.snippet).toContain(`integrity="${manifest.integrity}" crossorigin="anonymous"`);
    expect(out.website).toMatchObject({ id: websites[0].id, origin: `127.0.0.1:${site.port}` });
    // The snippet names the server's configured address; fetch the same path from the test server.
    const served = await fetch(`${api.url}${new URL(out.scriptUrl).pathname}`);
    expect(served.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const bytes = Buffer.from(await served.arrayBuffer());
    expect(`sha384-${createHash("sha384").update(bytes).digest("base64")}`).toBe(out.integrity);

    const placeholder = await api.cli("widget", "snippet", "--project", project.id);
    expect(placeholder.snippet).toContain('data-key="ipa_pk_YOUR_PUBLIC_KEY"');
    // A secret key is bad input: one line on stderr, exit code 2.
    await expect(api.cli("widget", "snippet", "--project", project.id, "--key", secretKey)).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^ipatlas: --key must be a public key/),
    });
    await expect(api.cli("widget", "snippet", "--project", project.id, "--website", "nope")).rejects.toMatchObject({ code: 2 });
  });

  it("wraps instead of cutting in a 320 px column, and the badge shows its details on hover and focus", async () => {
    const url = site.page(
      "/narrow.html",
      html(
        `<div style="width:320px"><ipatlas-widget id="card" style="width:100%" ip="${VISITOR_IP}" fields="flag,country,region,city,time,asn,ip"></ipatlas-widget></div>` +
          `<p><ipatlas-widget id="badge" variant="badge" ip="${FIXED_IP}" fields="flag,country,city,asn,ip"></ipatlas-widget></p>` +
          `<p><ipatlas-widget id="private" ip="10.1.2.3"></ipatlas-widget></p>` +
          `<script async src="${api.url}/widget.js" data-key="${publicKey}"></script>`,
      ),
    );
    const { page, context } = await open(url);
    await waitForEvents(page, 3);
    const card = page.locator("#card");
    expect((await card.boundingBox())!.width).toBe(320);
    // nothing is cut: every line's full text fits its box (it wraps to more lines instead)
    for (const part of await card.locator(".line, .sub").all()) {
      expect(await part.evaluate((el) => el.scrollWidth <= el.clientWidth && getComputedStyle(el).textOverflow !== "ellipsis")).toBe(true);
    }
    expect(await card.locator('[part="box"]').getAttribute("title")).toContain(VISITOR_IP);

    const badge = page.locator("#badge");
    const details = badge.locator(".more");
    expect(await details.isVisible()).toBe(false);
    await badge.locator('[part="box"]').hover();
    expect(await details.isVisible()).toBe(true);
    expect(await details.textContent()).toContain(FIXED_IP);
    await page.mouse.move(600, 340);
    expect(await details.isVisible()).toBe(false);
    await badge.locator('[part="box"]').focus();
    expect(await details.isVisible()).toBe(true);

    const privateBox = page.locator('#private [part="box"]');
    expect(await privateBox.getAttribute("data-reason")).toBe("private");
    expect(await page.locator("#private .sub").textContent()).toBe("10.1.2.3 is used inside a local network, so it has no location.");
    await page.screenshot({ path: "/work/notes/screens/web-widget-narrow-badge-private.png" });

    // the visitor goes offline, then the page asks about another address
    await context.setOffline(true);
    await page.evaluate(() => document.querySelector("#private")!.setAttribute("ip", "9.9.9.9"));
    await expect.poll(() => privateBox.getAttribute("data-reason")).toBe("offline");
    expect(await page.locator("#private [part=error]").textContent()).toBe("You are offline");
    await context.close();
  });

  it("gives a working snippet again with --roll, and none for a browser extension", async () => {
    const { projects } = await api.cli("project", "list");
    const project = projects.find((p: { name: string }) => p.name === "Widget e2e");
    const extension = await api.cli("website", "add", "--project", project.id, "--origin", "chrome-extension://abcdefghijklmnopabcdefghijklmnop");
    expect(extension.snippet).toBeNull();
    await expect(api.cli("widget", "snippet", "--project", project.id, "--website", extension.website.id)).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining("browser extension"),
    });
    await expect(api.cli("website", "add", "--project", project.id, "--origin", "chrome-extension://abc")).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining("32 letters from a to p"),
    });

    const other = await startSite();
    try {
      const website = await api.cli("website", "add", "--project", project.id, "--origin", `127.0.0.1:${other.port}`);
      const rolled = await api.cli("widget", "snippet", "--project", project.id, "--website", website.website.id, "--roll");
      expect(rolled.publicKey).not.toBe(website.publicKey);
      // pointing at the running server (its recorded address), pasted as printed: the widget works
      expect(rolled.scriptUrl.startsWith(`${api.url}/widget/`)).toBe(true);
      const url = other.page("/rolled.html", html(rolled.snippet.replace("<ipatlas-widget>", `<ipatlas-widget ip="${FIXED_IP}">`)));
      const { page, context } = await open(url);
      await waitForEvents(page, 1);
      expect((await recorded(page)).events[0]!.type).toBe("ipatlas:load");
      await context.close();
    } finally {
      await other.close();
    }
  }, CLI_AND_SCREENSHOTS);

  it("serves the demo page, whose widgets work once the page's origin is registered", async () => {
    const { project } = await api.cli("project", "list").then((r) => ({ project: r.projects.find((p: { name: string }) => p.name === "Widget e2e") }));
    const { publicKey: demoKey } = await api.cli("website", "add", "--project", project.id, "--origin", `127.0.0.1:${api.port}`);
    const res = await fetch(`${api.url}/widget/demo?key=${demoKey}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).not.toContain("unsafe-inline");
    const { page, context, warnings } = await open(`${api.url}/widget/demo?key=${demoKey}`);
    const widgets = page.locator("ipatlas-widget");
    expect(await widgets.count()).toBe(6);
    const fixed = widgets.nth(1).locator('[part="box"]');
    await expect.poll(() => fixed.getAttribute("data-status")).toBe("ready");
    // region and local time are fields of their own
    expect(await widgets.nth(1).locator('[part="extra"]').textContent()).toMatch(/\d{1,2}:\d{2}.* local time$/);
    await expect.poll(() => widgets.nth(4).locator('[part="box"]').getAttribute("data-reason")).toBe("private");
    expect(warnings).toEqual([]);
    await context.close();
    // the page in both colour schemes, at desktop and phone widths
    for (const colorScheme of ["light", "dark"] as const) {
      for (const width of [1280, 390]) {
        const shot = await browser.newContext({ viewport: { width, height: 900 }, colorScheme });
        const view = await shot.newPage();
        await view.goto(`${api.url}/widget/demo?key=${demoKey}`);
        // every widget has answered: counting boxes still loading would pass before any had started
        await expect.poll(() => view.locator('ipatlas-widget [part="box"]:not([data-status="loading"])').count()).toBe(6);
        await view.screenshot({ path: `/work/notes/screens/web-widget-demo-${width}-${colorScheme}.png`, fullPage: true });
        await shot.close();
      }
    }
  }, CLI_AND_SCREENSHOTS);
});
