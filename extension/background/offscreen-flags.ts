/**
 * Flag drawing for the toolbar icon. Chrome's service worker has no DOM to decode the flag SVG,
 * so it asks an offscreen document (created on first use, kept for the worker's life); Firefox's
 * background page has a DOM and draws itself.
 */
import type { WxtBrowser as Browser } from "wxt/browser";
import { drawFlagIcon, isDrawFlagMessage, toImageData, type DrawFlagMessage, type IconBitmap } from "../shared/flag-icon.js";

export type DrawFlag = (url: string) => Promise<Record<number, ImageData> | null>;

const OFFSCREEN_PATH = "/offscreen.html";

interface OffscreenApi {
  createDocument(options: { url: string; reasons: string[]; justification: string }): Promise<void>;
  hasDocument?(): Promise<boolean>;
}

/** The offscreen document's side: answers draw-flag messages. */
export function serveFlagDrawing(browser: Browser) {
  browser.runtime.onMessage.addListener((message: unknown, _sender, sendResponse: (r: unknown) => void) => {
    if (!isDrawFlagMessage(message)) return undefined;
    drawFlagIcon(message.url).then(sendResponse, () => sendResponse(null));
    return true;
  });
}

/** The background's side: a DrawFlag that works in a Chrome service worker and a Firefox page. */
export function flagDrawer(browser: Browser): DrawFlag {
  if (typeof document !== "undefined") {
    return (url) => drawFlagIcon(url).then(toImageData, () => null);
  }
  const offscreen = (browser as unknown as { offscreen?: OffscreenApi }).offscreen;
  let created: Promise<void> | null = null;
  const ensureDocument = () =>
    (created ??= (async () => {
      if (await offscreen!.hasDocument?.().catch(() => false)) return;
      await offscreen!.createDocument({
        url: OFFSCREEN_PATH,
        reasons: ["DOM_PARSER"],
        justification: "Decode the site's flag SVG to draw it into the toolbar icon",
      });
    })().catch((error: unknown) => {
      created = null;
      // Already there (another wake-up of the worker created it): fine.
      if (!String((error as Error)?.message).includes("single offscreen")) throw error;
    }));
  return async (url) => {
    if (!offscreen) return null;
    try {
      await ensureDocument();
      const message: DrawFlagMessage = { type: "draw-flag", url };
      const bitmaps = (await browser.runtime.sendMessage(message)) as IconBitmap[] | null;
      return bitmaps ? toImageData(bitmaps) : null;
    } catch {
      return null;
    }
  };
}
