/**
 * Debian's Chromium through playwright-core (Playwright cannot download browsers here).
 * One place for the flags, shared by the widget, extension and dashboard end-to-end tests.
 */
import { build } from "esbuild";
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

/**
 * A persistent context with an unpacked extension loaded; resolves its id from the service worker
 * URL. `locale` (e.g. "de") sets the browser's UI language, which the extension's i18n follows.
 */
export async function launchWithExtension(
  extensionDir: string,
  options: { locale?: string } = {},
): Promise<{ context: BrowserContext; extensionId: string }> {
  const userDataDir = mkdtempSync(join(tmpdir(), "ipatlas-chromium-"));
  const language = options.locale ? [`--lang=${options.locale}`] : [];
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: false,
    args: [...CHROMIUM_ARGS, ...language, `--disable-extensions-except=${extensionDir}`, `--load-extension=${extensionDir}`],
    ...(options.locale ? { locale: options.locale, env: { ...process.env, LANGUAGE: options.locale } } : {}),
  });
  let [worker] = context.serviceWorkers();
  if (!worker) worker = await context.waitForEvent("serviceworker", { timeout: 20_000 });
  const extensionId = new URL(worker.url()).host;
  return { context, extensionId };
}

/**
 * Browser modules as one classic script for a test page: `entry` is TypeScript that imports them
 * (relative to `dir`) and sets what the test calls on `window`. JSX is Preact's.
 */
export async function bundleForPage(entry: string, dir: string): Promise<string> {
  const result = await build({
    stdin: { contents: entry, resolveDir: dir, loader: "ts" },
    bundle: true,
    write: false,
    format: "iife",
    jsx: "automatic",
    jsxImportSource: "preact",
  });
  return result.outputFiles[0]!.text;
}
