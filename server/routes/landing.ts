/**
 * GET /: a small page that names the server and links what a person looks for first (the
 * dashboard, the API reference, health, the widget demo), and GET /docs/api: the API reference
 * (docs/api.md) as plain text. Everything else at the root stays the API's JSON 404.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { Hono } from "hono";
import type { AppDeps, AppEnv } from "../app-types.js";

const ROOT = resolve(import.meta.dirname, "../..");
const { version } = JSON.parse(readFileSync(resolve(ROOT, "package.json"), "utf8")) as { version: string };
export const API_DOCS_FILE = resolve(ROOT, "docs/api.md");

const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export function landingPage(): string {
  const links = [
    ["/dashboard", "Dashboard", "projects, keys, websites and conversions (sign in with the admin token)"],
    ["/docs/api", "API reference", "GET/POST /convert, /conversions/list and /conversions/get, errors, quotas"],
    ["/healthz", "Health", "status and the geolocation data in use"],
    ["/widget/demo", "Widget demo", "the embeddable widget (add ?key=ipa_pk_… of a website registered for this page)"],
  ];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark"><title>IP Atlas</title>
<style>
body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1.25rem;color:#1b1f24;background:#fff}
h1{font-size:1.6rem;margin:0}p.v{margin:.25rem 0 2rem;color:#5b6470}ul{list-style:none;padding:0;margin:0}
li{padding:.75rem 0;border-top:1px solid #d5dae0}a{color:#0b57d0;font-weight:600;text-decoration:none}a:hover,a:focus-visible{text-decoration:underline}
li span{display:block;color:#5b6470;font-size:.9rem}code{font-size:.9em}
@media (prefers-color-scheme:dark){body{background:#16191d;color:#eef1f4}p.v,li span{color:#a3acb8}li{border-color:#3a414b}a{color:#8ab4f8}}
</style></head>
<body><main>
<h1>IP Atlas</h1>
<p class="v">Self-hosted IP geolocation server, version ${version}</p>
<ul>
${links.map(([href, name, what]) => `<li><a href="${href}">${name}</a><span>${what}</span></li>`).join("\n")}
</ul>
<p class="v">Try it: <code>curl -H 'x-api-key: ipa_sk_…' '&lt;this server&gt;/convert?ip=8.8.8.8'</code></p>
</main></body></html>
`;
}

export function landingRoutes(_deps: AppDeps, { apiDocsFile = API_DOCS_FILE } = {}): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const page = landingPage();
  app.get("/", (c) => c.html(page, 200, { "content-security-policy": PAGE_CSP, "cache-control": "no-cache" }));
  app.get("/docs/api", (c) => {
    try {
      return c.body(readFileSync(apiDocsFile, "utf8"), 200, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-cache" });
    } catch {
      return c.notFound();
    }
  });
  return app;
}
