/**
 * The ready-to-paste embed code for a website: the versioned, immutable script URL with its SRI
 * hash. Printed by `ipatlas widget snippet` and `ipatlas website add`.
 */
import { publicBaseUrl, type Config } from "../config.js";
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

/**
 * The snippet for this server as configured (IPATLAS_PUBLIC_URL, else host and port), or null
 * when the widget is not built. `ipatlas website add` prints it after the new public key.
 */
export function configuredWidgetSnippet(config: Config, publicKey?: string | null, dir?: string): string | null {
  const manifest = readWidgetManifest(dir);
  return manifest ? widgetSnippet({ baseUrl: publicBaseUrl(config, config.port), publicKey, manifest }) : null;
}
