/**
 * Serves the built widget (dist/widget, see widget/build.ts):
 *   GET /widget.js          the current build; short cache that must revalidate (ETag)
 *   GET /widget/<hash>.js   a build by content hash; cached for a year, immutable
 *   GET /widget/demo        the demo page, under a strict CSP (?key=ipa_pk_…, ?api=one of this server's names)
 * Scripts are CORS-readable (`*`) so pages can pin them with SRI (`crossorigin="anonymous"`).
 */
import { Hono, type Context } from "hono";
import type { AppEnv, AppDeps } from "../app-types.js";
import { demoApiOrigin, demoPageCsp, renderDemoPage } from "../widget/demo-page.js";
import { createWidgetFiles, WIDGET_DIST_DIR, type WidgetScript } from "../widget/manifest.js";

export const WIDGET_CACHE = {
  current: "public, max-age=300, must-revalidate",
  versioned: "public, max-age=31536000, immutable",
} as const;

export interface WidgetRouteOptions {
  /** where the build is; default dist/widget */
  dir?: string;
}

function sendScript(c: Context<AppEnv>, script: WidgetScript, cacheControl: string, etag: string): Response {
  const headers: Record<string, string> = {
    "content-type": "text/javascript; charset=utf-8",
    "cache-control": cacheControl,
    etag,
    vary: "Accept-Encoding",
    "access-control-allow-origin": "*",
    "cross-origin-resource-policy": "cross-origin",
    "x-content-type-options": "nosniff",
  };
  const matches = c.req.header("if-none-match")?.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
  if (matches) return c.body(null, 304, headers);
  if (/\bgzip\b/.test(c.req.header("accept-encoding") ?? "")) {
    return c.body(script.gzip as Uint8Array<ArrayBuffer>, 200, { ...headers, "content-encoding": "gzip" });
  }
  return c.body(script.code as Uint8Array<ArrayBuffer>, 200, headers);
}

export function widgetRoutes(deps: AppDeps, { dir = WIDGET_DIST_DIR }: WidgetRouteOptions = {}): Hono<AppEnv> {
  const files = createWidgetFiles(dir);
  // Behind a proxy the page's origin differs from the public URL: the demo then asks the public URL.
  const publicUrl = typeof deps.config.publicUrl === "string" ? deps.config.publicUrl : null;
  const app = new Hono<AppEnv>();

  app.get("/widget.js", (c) => {
    const bundle = files.current();
    if (!bundle) return c.notFound();
    return sendScript(c, bundle, WIDGET_CACHE.current, `"${bundle.manifest.hash}"`);
  });

  app.get("/widget/:file{[0-9a-f]{16}\\.js}", (c) => {
    const file = c.req.param("file");
    const script = files.versioned(file);
    if (!script) return c.notFound();
    return sendScript(c, script, WIDGET_CACHE.versioned, `"${file.slice(0, -3)}"`);
  });

  app.get("/widget/demo", (c) => {
    const bundle = files.current();
    if (!bundle) return c.notFound();
    const pageOrigin = new URL(c.req.url).origin;
    const apiOrigin = demoApiOrigin(pageOrigin, c.req.query("api"), publicUrl);
    const html = renderDemoPage(bundle, { key: c.req.query("key"), pageOrigin, apiOrigin });
    return c.html(html, 200, {
      "content-security-policy": demoPageCsp(apiOrigin),
      "cache-control": "no-cache",
      "referrer-policy": "no-referrer",
      "x-content-type-options": "nosniff",
    });
  });

  app.get("/widget/demo.css", (c) => {
    const bundle = files.current();
    if (!bundle) return c.notFound();
    return c.body(bundle.demoCss, 200, { "content-type": "text/css; charset=utf-8", "cache-control": WIDGET_CACHE.current, "x-content-type-options": "nosniff" });
  });

  return app;
}
