/**
 * The browser extension under load (issue #4): a log viewer with 10,000 public addresses, once as
 * 10,000 rows and once as one <pre> text node, in Debian Chromium with the built extension
 * (.output/chrome-mv3) talking to a real server. Prints how long the scan took, the long tasks
 * (> 50 ms, PerformanceObserver 'longtask' in the page) from the moment the content script
 * arrived, and the content script's gzipped size. Target: no task over 50 ms, ≤ 30 KB gzipped.
 *
 *   npm run bench -- extension      (builds the Chrome extension first when there is none)
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { launchWithExtension } from "../test/helpers/chromium.js";
import { ROOT, startServer } from "../test/helpers/server.js";
import { logPage, servePages } from "../test/helpers/page-server.js";

const LINES = 10_000;
const SCROLL_LINES = 3_000;
// IPATLAS_EXTENSION_DIR: another build (e.g. an older one) to compare
const dir = process.env.IPATLAS_EXTENSION_DIR ?? join(ROOT, ".output/chrome-mv3");
if (!existsSync(join(dir, "manifest.json"))) {
  if (process.env.IPATLAS_EXTENSION_DIR) throw new Error(`no extension build in ${dir}`);
  // `npm ci` builds the widget and the dashboard, not the extension: a fresh clone has none
  const built = spawnSync("npx", ["wxt", "build"], { cwd: ROOT, stdio: "inherit" });
  if (built.status !== 0) throw new Error("`wxt build` failed");
}

const content = readFileSync(join(dir, "content-scripts/content.js"));
console.log(`content script: ${(content.length / 1024).toFixed(1)} KB, ${(gzipSync(content, { level: 9 }).length / 1024).toFixed(1)} KB gzipped (budget 30 KB)`);

/** The same 10,000 lines in one text node: the scanner must slice it. */
const prePage = logPage(LINES)
  .replace(/<div class="row">/g, "")
  .replace(/<\/div>/g, "")
  .replace("<body>", "<body><pre>")
  .replace("</body>", "</pre></body>");

const server = await startServer();
const pages = await servePages({ "/rows": logPage(LINES), "/pre": prePage, "/scroll": logPage(SCROLL_LINES) });
const { context, extensionId } = await launchWithExtension(dir);
try {
  const project = await server.cli<{ project: { id: string } }>("project", "create", "--name", "bench", "--plan", "scale");
  const site = await server.cli<{ publicKey: string }>("website", "add", "--project", project.project.id, "--origin", `chrome-extension://${extensionId}`);
  const worker = context.serviceWorkers()[0]!;
  await worker.evaluate(
    ([serverUrl, apiKey]) =>
      (globalThis as any).chrome.storage.local.set({ settings: { serverUrl, apiKey, enabled: true, disabledSites: [], cacheTtlMinutes: 60 } }),
    [server.url, site.publicKey],
  );

  for (const path of ["/rows", "/pre"]) {
    const page = await context.newPage();
    await page.goto(pages.url + path);
    const started = Date.now();
    await page.waitForFunction((n) => document.querySelectorAll("ipatlas-ip").length >= n, LINES, { timeout: 120_000, polling: 100 });
    const wallMs = Date.now() - started;
    await page.waitForTimeout(1000); // let trailing tasks (lookups of the visible rows) report
    const figures = await page.evaluate(() => {
      const w = window as unknown as { __longTasks: Array<{ start: number; duration: number }>; __extensionStart: number };
      const after = w.__longTasks.filter((t) => t.start >= w.__extensionStart);
      const before = w.__longTasks.filter((t) => t.start < w.__extensionStart);
      return {
        extensionStart: w.__extensionStart,
        after: after.map((t) => Math.round(t.duration)),
        before: before.map((t) => Math.round(t.duration)),
      };
    });
    const max = figures.after.length ? Math.max(...figures.after) : 0;
    console.log(
      `${path === "/rows" ? "10,000 rows     " : "one 10,000-line <pre>"}: all ${LINES} marked ${wallMs} ms after load; ` +
        `long tasks after the content script arrived: ${figures.after.length} (max ${max} ms); ` +
        `page's own load before it: ${figures.before.length} (max ${figures.before.length ? Math.max(...figures.before) : 0} ms)`,
    );
    await page.close();
  }

  // What reading a log costs: a free-plan project (1,000 conversions a month), a 3,000-line log
  // scrolled top to bottom a screenful at a time, the pointer resting nowhere.
  const free = await server.cli<{ project: { id: string } }>("project", "create", "--name", "bench-free");
  const freeSite = await server.cli<{ publicKey: string }>("website", "add", "--project", free.project.id, "--origin", `chrome-extension://${extensionId}`);
  await worker.evaluate(
    ([serverUrl, apiKey]) =>
      (globalThis as any).chrome.storage.local.set({ settings: { serverUrl, apiKey, enabled: true, disabledSites: [], cacheTtlMinutes: 60 } }),
    [server.url, freeSite.publicKey],
  );
  await new Promise((resolve) => setTimeout(resolve, 500)); // the worker takes up the new key and empties its cache
  const usage = async () => (await server.cli<{ used: number }>("usage", "--project", free.project.id)).used;
  const before = await usage();
  const page = await context.newPage();
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto(pages.url + "/scroll");
  await page.waitForFunction((n) => document.querySelectorAll("ipatlas-ip").length >= n, SCROLL_LINES, { timeout: 120_000, polling: 100 });
  for (let y = 0; y < (await page.evaluate(() => document.body.scrollHeight)); y += 600) {
    await page.evaluate((top) => window.scrollTo(0, top), y);
    await page.waitForTimeout(50);
  }
  await page.waitForTimeout(1500);
  console.log(`scrolling a ${SCROLL_LINES.toLocaleString("en")}-line log top to bottom: ${(await usage()) - before} conversions of the free plan's 1,000`);
  await page.close();
} finally {
  await context.close();
  await pages.close();
  await server.stop();
}
