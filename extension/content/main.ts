/**
 * The content script's life: when the extension is on for this site, scan the page, look up the
 * visible public addresses, and show the card on hover; follow settings changes without a reload.
 */
import type { WxtBrowser as Browser } from "wxt/browser";
import { askWorker } from "../shared/messages.js";
import { isActiveOn, loadSettings, SETTINGS_KEY, type Settings } from "../shared/settings.js";
import { installHoverCard, type HoverCardController } from "./hover-card.js";
import { createContentLookups } from "./lookups.js";
import { createScanner, type Scanner } from "./scanner.js";
import { watchVisibleIps, type VisibilityWatcher } from "./visibility.js";

export async function runContentScript(browser: Browser, doc: Document = document) {
  const lookups = createContentLookups({
    ask: (ips) => askWorker((m) => browser.runtime.sendMessage(m), { type: "lookup", ips }),
  });
  let active: { scanner: Scanner; visibility: VisibilityWatcher; card: HoverCardController } | null = null;

  function apply(settings: Settings) {
    const on = isActiveOn(settings, location.hostname) && doc.body !== null;
    if (on && !active) {
      // Unconfigured, the worker answers with "set the Server URL" at once, and the card says so.
      const visibility = watchVisibleIps((ips) => void lookups.request(ips));
      const scanner = createScanner({ root: doc.body, onMarks: (marks) => visibility.watch(marks) });
      const card = installHoverCard(doc, lookups);
      active = { scanner, visibility, card };
      scanner.start();
    } else if (!on && active) {
      active.scanner.stop();
      active.visibility.stop();
      active.card.destroy();
      active = null;
    }
  }

  apply(await loadSettings(browser.storage.local));
  browser.storage.onChanged.addListener((changes, area) => {
    if (area === "local" && SETTINGS_KEY in changes) void loadSettings(browser.storage.local).then(apply);
  });
}
