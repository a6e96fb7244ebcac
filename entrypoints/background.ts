/** Background service worker: everything lives in extension/background/worker.ts. */
import { browser } from "wxt/browser";
import { defineBackground } from "wxt/utils/define-background";
import { startWorker } from "../extension/background/worker.js";
import { firefoxDnsResolver } from "../extension/background/dns-resolver.js";

export default defineBackground(() => {
  startWorker(browser, firefoxDnsResolver(browser));
});
