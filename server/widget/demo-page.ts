/**
 * The demo page (/widget/demo): the built template with the widget script, the API to ask and the
 * visitor's `?key=` filled in, served under a strict CSP (no 'unsafe-inline').
 *
 * Browsers send no Origin header on a same-origin GET, and a public key needs one
 * (docs/api.md#keys-and-origins), so the demo's widgets ask the server under a second name:
 * IPATLAS_PUBLIC_URL, or on loopback the twin host (127.0.0.1 <-> localhost).
 */
import type { WidgetBundle } from "./manifest.js";

const PUBLIC_KEY = /^ipa_pk_[A-Za-z0-9_-]{1,200}$/;

const escapeHtml = (value: string) =>
  value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

function httpOrigin(text: string | null | undefined): string | null {
  try {
    const url = new URL(text ?? "");
    return url.protocol === "http:" || url.protocol === "https:" ? url.origin : null;
  } catch {
    return null;
  }
}

function loopbackTwin(pageOrigin: string): string | null {
  const page = new URL(pageOrigin);
  const twin = page.hostname === "127.0.0.1" ? "localhost" : page.hostname === "localhost" ? "127.0.0.1" : null;
  if (!twin) return null;
  page.hostname = twin;
  return page.origin;
}

/**
 * The API origin the demo's widgets use, always a name of this server: the public URL when it
 * differs from the page's origin, else the loopback twin, else the page itself. `requested`
 * (`?api=`) picks among those names and is ignored otherwise, since the origin lands in the
 * page's script URL and CSP: a link must not make the page run another site's script.
 */
export function demoApiOrigin(pageOrigin: string, requested: string | null | undefined, publicUrl: string | null): string {
  const names = [httpOrigin(publicUrl), loopbackTwin(pageOrigin)].filter((name): name is string => name !== null && name !== pageOrigin);
  const wanted = httpOrigin(requested);
  if (wanted && names.includes(wanted)) return wanted;
  return names[0] ?? pageOrigin;
}

/** The policy the demo page is served with; docs/widget.md explains each line. */
export function demoPageCsp(apiOrigin: string): string {
  return [
    "default-src 'none'",
    `script-src 'self' ${apiOrigin}`,
    `connect-src ${apiOrigin}`,
    // flag URLs use the server's public address, which may be either name
    `img-src 'self' ${apiOrigin}`,
    "style-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

export interface DemoPageOptions {
  /** `?key=` as given; anything that is not a public key is dropped */
  key: string | undefined;
  /** the origin the page is served from, e.g. `http://127.0.0.1:8787` */
  pageOrigin: string;
  apiOrigin: string;
}

export function renderDemoPage(bundle: WidgetBundle, { key, pageOrigin, apiOrigin }: DemoPageOptions): string {
  const values: Record<string, string> = {
    key: key && PUBLIC_KEY.test(key) ? key : "",
    src: `${apiOrigin}/widget/${bundle.manifest.file}`,
    integrity: bundle.manifest.integrity,
    api: apiOrigin,
    // the pattern to register (docs/api.md#keys-and-origins): host and port of the page's origin
    origin: new URL(pageOrigin).host,
  };
  return bundle.demoHtml.replace(/\{\{(\w+)\}\}/g, (match, name: string) => (name in values ? escapeHtml(values[name]!) : match));
}
