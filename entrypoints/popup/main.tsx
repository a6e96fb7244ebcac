/** Popup entry: everything lives in extension/popup/mount.tsx. */
import { browser } from "wxt/browser";
import { mountPopup } from "../../extension/popup/mount.js";

mountPopup(browser, document.getElementById("app")!);
