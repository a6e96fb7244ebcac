/**
 * Entry of widget.js. Defines `<ipatlas-widget>` and, when the page has none, puts one right
 * after the script tag. The script's own `data-*` attributes are every widget's defaults. The
 * only global it adds is the custom element name (and `window.IPAtlasWidget` with the version).
 */
import { createLookupCache } from "./cache.js";
import { createWidgetElement, TAG } from "./element.js";
import { createLookup } from "./lookup.js";
import type { SettingAttribute } from "./settings.js";

declare const __IPATLAS_WIDGET_VERSION__: string;

function sessionStore(): Storage | null {
  try {
    return window.sessionStorage; // the getter itself throws in some sandboxed frames
  } catch {
    return null;
  }
}

function start(): void {
  if (customElements.get(TAG)) return; // loaded twice: the first copy already serves the page
  const script = document.currentScript as HTMLScriptElement | null;
  // The server that served this file is the one to ask (data-api overrides, e.g. behind a CDN).
  const baseUrl = new URL(script?.dataset.api || "/", script?.src || location.href).href;
  const lookup = createLookup({ baseUrl, cache: createLookupCache(sessionStore()) });
  const defaults = (name: SettingAttribute) => script?.getAttribute(`data-${name}`);
  const pageLang = () => document.documentElement.lang || navigator.language || "en";

  customElements.define(TAG, createWidgetElement({ lookup, defaults, pageLang, server: new URL(baseUrl).origin }));
  Object.defineProperty(window, "IPAtlasWidget", { value: Object.freeze({ version: __IPATLAS_WIDGET_VERSION__ }) });

  const placeDefault = () => {
    if (document.querySelector(TAG) || !script?.isConnected) return;
    // A script in <head> cannot show anything there: the widget then opens the body.
    if (script.closest("head")) document.body?.prepend(document.createElement(TAG));
    else script.after(document.createElement(TAG));
  };
  // With async the page may still be parsing: wait until every <ipatlas-widget> it has is there.
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", placeDefault, { once: true });
  else placeDefault();
}

try {
  start();
} catch (error) {
  console.warn("[IP Atlas widget]", error);
}
