/**
 * The ready-to-paste embed code for a website: the versioned, immutable script URL with its SRI
 * hash. Printed by `ipatlas widget snippet` and `ipatlas website add`.
 */
import { isExtensionPattern } from "../../lib/origin/index.js";
import type { Config } from "../config.js";
import { serverBaseUrl } from "../public-url.js";
import { readWidgetManifest, type WidgetManifest } from "./manifest.js";

/** What the snippet shows when the key's value is not known (keys are stored only as hashes). */
export const KEY_PLACEHOLDER = "ipa_pk_YOUR_PUBLIC_KEY";

export interface SnippetOptions {
  /** the server's public address, e.g. `https://geo.example.com` */
  baseUrl: string;
  publicKey?: string | null;
  manifest: WidgetManifest;
}

const escapeAttribute = (value: string) =>
  value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

export function widgetScriptUrl(baseUrl: string, manifest: WidgetManifest): string {
  return new URL(`widget/${manifest.file}`, baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`).href;
}

export function widgetSnippet({ baseUrl, publicKey, manifest }: SnippetOptions): string {
  const src = widgetScriptUrl(baseUrl, manifest);
  // crossorigin is required: browsers only check integrity on a CORS-fetched cross-origin script.
  return (
    `<ipatlas-widget></ipatlas-widget>\n` +
    `<script async src="${escapeAttribute(src)}" integrity="${manifest.integrity}" crossorigin="anonymous" ` +
    `data-key="${escapeAttribute(publicKey || KEY_PLACEHOLDER)}"></script>`
  );
}

/** Extensions call the API from their own pages; a widget snippet for them would never load. */
export function takesWidget(originPattern: string): boolean {
  return !isExtensionPattern(originPattern);
}

/**
 * The snippet pointing at the server that owns this data dir (IPATLAS_PUBLIC_URL, else the
 * address that server recorded, else host and port), or null when the widget is not built or
 * the origin is an extension's. `ipatlas website add` prints it after the new public key.
 */
export function configuredWidgetSnippet(config: Config, originPattern: string, publicKey?: string | null, dir?: string): string | null {
  if (!takesWidget(originPattern)) return null;
  const manifest = readWidgetManifest(dir);
  return manifest ? widgetSnippet({ baseUrl: serverBaseUrl(config), publicKey, manifest }) : null;
}
