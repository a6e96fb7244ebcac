/**
 * Serves the built dashboard (dist/dashboard, `npm run build:dashboard`): the page at /dashboard
 * under a strict CSP, and its content-hashed assets cached for good.
 */
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { Hono } from "hono";
import type { AppEnv } from "../app-types.js";

export const DASHBOARD_DIST_DIR = resolve(import.meta.dirname, "../../dist/dashboard");

const ASSET = /^(?:app-[0-9a-f]{16}\.(js|css)|map-[0-9a-f]{16}\.(json))$/;
const TYPES = { js: "text/javascript; charset=utf-8", css: "text/css; charset=utf-8", json: "application/json" } as const;

function pageHeaders(imageOrigins: string[]): Record<string, string> {
  return {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-cache",
    // inline style attributes only (meter widths, map shading); no inline script, no framing.
    // Flag images come from the server's public URL, which may differ from the page's origin.
    "content-security-policy":
      `default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src ${["'self'", "data:", ...imageOrigins].join(" ")}; ` +
      "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
  };
}

export interface DashboardFilesOptions {
  dir?: string;
  /** origins the page may load images from besides its own (IPATLAS_PUBLIC_URL) */
  imageOrigins?: string[];
}

export function dashboardFiles({ dir = DASHBOARD_DIST_DIR, imageOrigins = [] }: DashboardFilesOptions = {}): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const PAGE_HEADERS = pageHeaders(imageOrigins);

  const page = async () => {
    try {
      return new Response(await readFile(join(dir, "index.html")), { headers: PAGE_HEADERS });
    } catch {
      return new Response("The dashboard is not built. Run: npm run build:dashboard\n", {
        status: 503,
        headers: { "content-type": "text/plain; charset=utf-8" },
      });
    }
  };
  app.get("/", page);
  app.get("/assets/:file", async (c) => {
    const file = c.req.param("file");
    const match = ASSET.exec(file);
    if (!match) return c.notFound();
    try {
      const body = await readFile(join(dir, "assets", file));
      return new Response(body, {
        headers: {
          "content-type": TYPES[(match[1] ?? match[2]) as keyof typeof TYPES],
          "cache-control": "public, max-age=31536000, immutable",
          "x-content-type-options": "nosniff",
        },
      });
    } catch {
      return c.notFound();
    }
  });
  // "/dashboard/" is a common way to type it
  app.get("/*", (c) => (c.req.path.endsWith("/dashboard/") ? c.redirect(c.req.path.slice(0, -1), 301) : c.notFound()));
  return app;
}
