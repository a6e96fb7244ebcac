/**
 * GET /flags/{code}.svg: the country flag SVGs of the flag-icons package, which `flag.img` of an
 * Ip object points at. A flag never changes within a package version, so responses are cached
 * for a year (immutable) with an ETag naming the package version; unknown codes fall through to
 * the app's 404.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { createRequire } from "node:module";
import { Hono } from "hono";
import type { AppEnv } from "../app-types.js";
import { FLAG_SVG_DIR, hasFlagSvg } from "../geo/country/flag-files.js";

export const FLAG_CACHE_CONTROL = "public, max-age=31536000, immutable";

const FLAG_ICONS_VERSION = (createRequire(import.meta.url)("flag-icons/package.json") as { version: string }).version;

export function flagRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const cache = new Map<string, Uint8Array>();

  app.get("/flags/:file", async (c) => {
    const match = /^([a-z]{2}(?:-[a-z]{2,3})?)\.svg$/.exec(c.req.param("file").toLowerCase());
    if (!match || !hasFlagSvg(match[1]!)) return c.notFound();
    const code = match[1]!;
    const etag = `"flag-icons-${FLAG_ICONS_VERSION}-${code}"`;
    const headers = {
      "content-type": "image/svg+xml",
      "cache-control": FLAG_CACHE_CONTROL,
      etag,
      "x-content-type-options": "nosniff",
      // Pages on other origins (the widget, the extension) show these images.
      "cross-origin-resource-policy": "cross-origin",
    };
    const ifNoneMatch = c.req.header("if-none-match");
    if (ifNoneMatch?.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag)) return c.body(null, 304, headers);
    let svg = cache.get(code);
    if (!svg) {
      svg = new Uint8Array(await readFile(join(FLAG_SVG_DIR, `${code}.svg`)));
      cache.set(code, svg);
    }
    return c.body(svg as Uint8Array<ArrayBuffer>, 200, headers);
  });
  return app;
}
