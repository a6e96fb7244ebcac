/** The options page wired to extension storage and the Origin rule. */
import { render } from "preact";
import type { WxtBrowser as Browser } from "wxt/browser";
import { OptionsPage } from "./options-page.js";
import { syncOriginRule, type SessionRulesApi } from "../shared/origin-header.js";
import { loadSettings, writeSettings } from "../shared/settings.js";
import type { StorageAreaLike } from "../shared/storage-area.js";
import "../shared/page.css";

export function mountOptions(browser: Browser, root: HTMLElement): void {
  const area = browser.storage.local as unknown as StorageAreaLike;
  const rules = (browser as unknown as { declarativeNetRequest?: SessionRulesApi }).declarativeNetRequest;
  render(
    <OptionsPage
      load={() => loadSettings(area)}
      save={(settings) => writeSettings(area, settings)}
      origin={location.origin}
      prepareServer={(serverUrl) => syncOriginRule(rules, serverUrl, location.origin)}
    />,
    root,
  );
}
