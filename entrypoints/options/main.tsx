/** Options page entry: wires the page to extension storage and the Origin rule. */
import { render } from "preact";
import { browser } from "wxt/browser";
import { OptionsPage } from "../../extension/options/options-page.js";
import { syncOriginRule, type SessionRulesApi } from "../../extension/shared/origin-header.js";
import { loadSettings, saveSettings } from "../../extension/shared/settings.js";
import type { StorageAreaLike } from "../../extension/shared/storage-area.js";
import "../../extension/shared/page.css";

const area = browser.storage.local as unknown as StorageAreaLike;
const rules = (browser as unknown as { declarativeNetRequest?: SessionRulesApi }).declarativeNetRequest;
render(
  <OptionsPage
    load={() => loadSettings(area)}
    save={(patch) => saveSettings(area, patch)}
    origin={location.origin}
    prepareServer={(serverUrl) => syncOriginRule(rules, serverUrl, location.origin)}
  />,
  document.getElementById("app")!,
);
