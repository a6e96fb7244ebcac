/** Chrome's offscreen document: draws flags for the toolbar icon (a service worker cannot decode SVG). */
import { browser } from "wxt/browser";
import { serveFlagDrawing } from "../../extension/background/offscreen-flags.js";

serveFlagDrawing(browser);
