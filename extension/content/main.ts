/**
 * The content script's life: once the extension is configured and on for this site, mark the
 * page's addresses and show the card for the ones the user shows interest in (hover, focus, the
 * context menu or shortcut). Only those are looked up, unless the user turned on prefetching of
 * what is in view. Follows settings changes without a reload.
 */
import type { WxtBrowser as Browser } from "wxt/browser";
import { askWorker, isShowLookupMessage, type ShowLookupResponse } from "../shared/messages.js";
import { isActiveOn, isConfigured, loadSettings, SETTINGS_KEY, type Settings } from "../shared/settings.js";
import { cardQuota, cardServices } from "./card-state.js";
import { findIps } from "../shared/find-ips.js";
import { installHoverCard, type HoverCardController } from "./hover-card.js";
import { createContentLookups } from "./lookups.js";
import { installRovingFocus, type RovingFocus } from "./roving-focus.js";
import { createScanner, type Scanner } from "./scanner.js";
import { watchVisibleIps, type VisibilityWatcher } from "./visibility.js";

interface Active {
  scanner: Scanner;
  card: HoverCardController;
  roving: RovingFocus;
  visibility: VisibilityWatcher | null;
}

export async function runContentScript(browser: Browser, doc: Document = document) {
  const lookups = createContentLookups({
    ask: (ips) => askWorker((m) => browser.runtime.sendMessage(m), { type: "lookup", ips }),
    onQuota: (quota) => (cardQuota.value = quota),
  });
  let active: Active | null = null;
  let prefetching = false;
  /** what the context menu was opened on, for a lookup of a link */
  let contextTarget: Element | null = null;

  function stop() {
    if (!active) return;
    active.scanner.stop();
    active.visibility?.stop();
    active.card.destroy();
    active.roving.destroy();
    active = null;
  }

  function apply(settings: Settings) {
    cardServices.value = settings.services;
    // Nothing is marked before the extension is set up: the popup says how instead.
    const on = isConfigured(settings) && isActiveOn(settings, location.hostname) && doc.body !== null;
    if (active && (!on || prefetching !== settings.prefetchVisible)) stop();
    if (!on || active) return;
    prefetching = settings.prefetchVisible;
    const visibility = prefetching ? watchVisibleIps((ips) => void lookups.request(ips)) : null;
    const roving = installRovingFocus(doc);
    const scanner = createScanner({
      root: doc.body,
      onMarks: (marks) => {
        roving.adopt(marks);
        visibility?.watch(marks);
      },
    });
    active = { scanner, card: installHoverCard(doc, lookups), roving, visibility };
    scanner.start();
  }

  /** The context menu or the shortcut: the first address in the text (or the page's selection). */
  function showLookup(text: string | undefined): ShowLookupResponse {
    const selection = doc.getSelection();
    const subject = text ?? selection?.toString() ?? "";
    const match = findIps(subject, 1)[0];
    if (!active || !match) return { shown: false, text: subject.trim().slice(0, 200) };
    const range = selection && selection.rangeCount > 0 && !selection.isCollapsed ? selection.getRangeAt(0) : null;
    const rect =
      range?.getBoundingClientRect() ??
      contextTarget?.getBoundingClientRect() ??
      new DOMRect(innerWidth / 3, innerHeight / 3, 0, 0);
    active.card.showAt(match, rect, true);
    return { shown: true, text: subject };
  }

  doc.addEventListener("contextmenu", (event) => (contextTarget = event.target instanceof Element ? event.target : null), true);
  browser.runtime.onMessage.addListener((message: unknown, _sender, sendResponse: (r: unknown) => void) => {
    if (!isShowLookupMessage(message)) return undefined;
    sendResponse(showLookup(message.text));
    return undefined;
  });

  apply(await loadSettings(browser.storage.local));
  browser.storage.onChanged.addListener((changes, area) => {
    if (area === "local" && SETTINGS_KEY in changes) void loadSettings(browser.storage.local).then(apply);
  });
}
