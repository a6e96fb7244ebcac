/**
 * GET /openapi.json (the document, no key) and GET /docs: Swagger UI rendering it, served from
 * the swagger-ui-dist package on this server (no CDN, works offline and behind a strict CSP).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Hono } from "hono";
import type { AppEnv } from "../app-types.js";
import { openApiDocument } from "./document.js";

const SWAGGER_UI_DIR = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
const ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>IP Atlas API reference</title>
<link rel="icon" href="/docs/swagger-ui/favicon-32x32.png">
<link rel="stylesheet" href="/docs/swagger-ui/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui/swagger-ui-bundle.js"></script>
<script src="/docs/swagger-ui/init.js"></script>
</body>
</html>
`;

// a file of its own rather than inline, so a Content-Security-Policy without 'unsafe-inline' works
const INIT = `window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#swagger-ui", deepLinking: true, tryItOutEnabled: false });\n`;

export function openApiRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const body = JSON.stringify(openApiDocument);
  const assets = new Map<string, Uint8Array>();

  app.get("/openapi.json", (c) => c.body(body, 200, { "content-type": "application/json; charset=utf-8", "cache-control": "no-cache" }));
  app.get("/docs", (c) => c.html(PAGE));
  app.get("/docs/swagger-ui/init.js", (c) => c.body(INIT, 200, { "content-type": "text/javascript; charset=utf-8" }));
  // its own folder: /docs/api and other /docs pages belong to other routes
  app.get("/docs/swagger-ui/:file", (c) => {
    const file = c.req.param("file");
    const type = ASSETS[file];
    if (!type) return c.notFound();
    let bytes = assets.get(file);
    if (!bytes) assets.set(file, (bytes = readFileSync(join(SWAGGER_UI_DIR, file))));
    return c.body(bytes as Uint8Array<ArrayBuffer>, 200, { "content-type": type, "cache-control": "public, max-age=86400" });
  });
  return app;
}
