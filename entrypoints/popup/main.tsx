/** Popup entry: everything lives in extension/popup/mount-popup.tsx. */
import { browser } from "wxt/browser";
import { mountPopup } from "../../extension/popup/mount-popup.js";
import "../../extension/shared/page.css";

mountPopup(browser, document.getElementById("app")!);
