/**
 * Debian's Chromium through playwright-core (Playwright cannot download browsers here).
 * One place for the flags, shared by the widget, extension and dashboard end-to-end tests.
 */
import { chromium, type Browser, type BrowserContext } from "playwright-core";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export const CHROMIUM_ARGS = [
  "--headless=new",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: false, args: CHROMIUM_ARGS });
}

/** A persistent context with an unpacked extension loaded; resolves its id from the service worker URL. */
export async function launchWithExtension(extensionDir: string): Promise<{ context: BrowserContext; extensionId: string }> {
  const userDataDir = mkdtempSync(join(tmpdir(), "ipatlas-chromium-"));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: false,
    args: [...CHROMIUM_ARGS, `--disable-extensions-except=${extensionDir}`, `--load-extension=${extensionDir}`],
  });
  let [worker] = context.serviceWorkers();
  if (!worker) worker = await context.waitForEvent("serviceworker", { timeout: 20_000 });
  const extensionId = new URL(worker.url()).host;
  return { context, extensionId };
}
