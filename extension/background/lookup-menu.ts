/**
 * "Look up with IP Atlas" in the context menu of a selection or a link, and the same for the
 * selection by keyboard shortcut (the `lookup-selection` command). The page's content script
 * shows the card next to the selection; where it cannot (no address in it, a browser page, the
 * extension off there), the popup's lookup box opens in a small window with the text.
 */
import type { WxtBrowser as Browser } from "wxt/browser";
import { t } from "../shared/i18n.js";
import type { ShowLookupMessage, ShowLookupResponse } from "../shared/messages.js";

export const MENU_ID = "ipatlas-lookup";
export const LOOKUP_COMMAND = "lookup-selection";

interface MenusApi {
  create(properties: { id: string; title: string; contexts: string[] }, callback?: () => void): unknown;
  removeAll(): Promise<void>;
  onClicked: { addListener(listener: (info: { selectionText?: string; linkUrl?: string }, tab?: { id?: number }) => void): void };
}

/** The part of a link worth looking up: its host (an address or a name). */
export function linkSubject(linkUrl: string): string {
  try {
    return new URL(linkUrl).hostname.replace(/^\[|\]$/g, "") || linkUrl;
  } catch {
    return linkUrl;
  }
}

export function installLookupMenu(browser: Browser) {
  const menus = (browser as unknown as { contextMenus?: MenusApi; menus?: MenusApi }).contextMenus ??
    (browser as unknown as { menus?: MenusApi }).menus;

  async function lookUp(tabId: number | undefined, text: string | undefined) {
    let answer: ShowLookupResponse | undefined;
    if (tabId !== undefined && tabId >= 0) {
      const message: ShowLookupMessage = text === undefined ? { type: "show-lookup" } : { type: "show-lookup", text };
      answer = await (browser.tabs.sendMessage(tabId, message) as Promise<ShowLookupResponse | undefined>).catch(() => undefined);
    }
    if (answer?.shown) return;
    const query = answer?.text ?? text ?? "";
    await browser.windows.create({
      url: (browser.runtime as unknown as { getURL(path: string): string }).getURL(`/popup.html?q=${encodeURIComponent(query)}`),
      type: "popup",
      width: 400,
      height: 640,
    });
  }

  if (menus) {
    // Menu items outlive the worker; created once per install or update (or browser start in Firefox).
    const create = () =>
      void menus.removeAll().then(() =>
        menus.create({ id: MENU_ID, title: t("menuLookup"), contexts: ["selection", "link"] }, () => void 0),
      );
    browser.runtime.onInstalled.addListener(create);
    browser.runtime.onStartup?.addListener(create);
    menus.onClicked.addListener((info, tab) => {
      const text = info.selectionText?.trim() || (info.linkUrl ? linkSubject(info.linkUrl) : undefined);
      void lookUp(tab?.id, text);
    });
  }
  browser.commands?.onCommand.addListener((command, tab) => {
    if (command === LOOKUP_COMMAND) void lookUp(tab?.id, undefined);
  });
}
