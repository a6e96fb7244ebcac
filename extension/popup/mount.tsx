/**
 * The popup wired to storage, the worker and the active tab. `?tabId=N` picks the tab when the
 * popup is opened as a page (tests, or a pinned tab) instead of from the toolbar.
 */
import { render } from "preact";
import type { WxtBrowser as Browser } from "wxt/browser";
import { PopupPage } from "./popup-page.js";
import { askWorker } from "../shared/messages.js";
import { loadSettings, saveSettings } from "../shared/settings.js";
import type { StorageAreaLike } from "../shared/storage-area.js";
import "../shared/page.css";

export function mountPopup(browser: Browser, root: HTMLElement): void {
  const area = browser.storage.local as unknown as StorageAreaLike;
  const send = (message: unknown) => browser.runtime.sendMessage(message);

  async function currentTab() {
    const id = Number(new URLSearchParams(location.search).get("tabId"));
    if (Number.isInteger(id) && id > 0) return browser.tabs.get(id);
    const [tab] = await browser.tabs.query({ active: true, currentWindow: true });
    return tab;
  }

  render(
    <PopupPage
      loadSettings={() => loadSettings(area)}
      saveSettings={(patch) => saveSettings(area, patch)}
      ownIp={() => askWorker(send, { type: "own-ip" })}
      tabServer={async () => {
        const tab = await currentTab();
        if (!tab?.id || !tab.url || !/^https?:/.test(tab.url)) return null;
        return askWorker(send, { type: "tab-server", tabId: tab.id, url: tab.url });
      }}
      openOptions={() => void browser.runtime.openOptionsPage()}
    />,
    root,
  );
}
