/**
 * The popup wired to storage, the worker and the active tab. `?tabId=N` picks the tab when the
 * popup is opened as a page (tests, or a pinned tab) instead of from the toolbar; `?q=text` fills
 * the lookup box (the context menu's fallback window).
 */
import { render } from "preact";
import type { WxtBrowser as Browser } from "wxt/browser";
import type { QuotaInfo } from "../../lib/client/index.js";
import { askWorker } from "../shared/messages.js";
import { QUOTA_KEY } from "../shared/quota.js";
import { loadSettings, writeSettings } from "../shared/settings.js";
import type { StorageAreaLike } from "../shared/storage-area.js";
import "../shared/page.css";
import { PopupPage } from "./popup-page.js";

export function mountPopup(browser: Browser, root: HTMLElement): void {
  const area = browser.storage.local as unknown as StorageAreaLike;
  const send = (message: unknown) => browser.runtime.sendMessage(message);
  const params = new URLSearchParams(location.search);

  async function currentTab() {
    const id = Number(params.get("tabId"));
    if (Number.isInteger(id) && id > 0) return browser.tabs.get(id);
    const [tab] = await browser.tabs.query({ active: true, currentWindow: true });
    return tab;
  }

  document.documentElement.lang = browser.i18n.getUILanguage();
  render(
    <PopupPage
      loadSettings={() => loadSettings(area)}
      save={(settings) => writeSettings(area, settings)}
      ownIp={() => askWorker(send, { type: "own-ip" })}
      tabServer={async () => {
        if (params.has("q") && !params.has("tabId")) return null; // the lookup window has no tab of its own
        const tab = await currentTab();
        if (!tab?.id || !tab.url || !/^https?:/.test(tab.url)) return null;
        return askWorker(send, { type: "tab-server", tabId: tab.id, url: tab.url });
      }}
      lookup={(ip) => askWorker(send, { type: "lookup", ips: [ip] })}
      quota={async () => ((await area.get(QUOTA_KEY))[QUOTA_KEY] as QuotaInfo | undefined) ?? null}
      openOptions={() => void browser.runtime.openOptionsPage()}
      {...(params.has("q") ? { query: params.get("q")! } : {})}
    />,
    root,
  );
}
