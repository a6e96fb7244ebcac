/** Content script on every page: everything lives in extension/content/main.ts. */
import { browser } from "wxt/browser";
import { defineContentScript } from "wxt/utils/define-content-script";
import { runContentScript } from "../extension/content/main.js";

export default defineContentScript({
  matches: ["<all_urls>"],
  runAt: "document_idle",
  main() {
    void runContentScript(browser);
  },
});
