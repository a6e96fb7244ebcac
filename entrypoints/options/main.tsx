/** Options page entry: everything lives in extension/options/mount.tsx. */
import { browser } from "wxt/browser";
import { mountOptions } from "../../extension/options/mount.js";

mountOptions(browser, document.getElementById("app")!);
