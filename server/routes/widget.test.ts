import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWidget } from "../../widget/build.js";
import type { AppDeps } from "../app-types.js";
import { loadConfig } from "../config.js";
import type { WidgetManifest } from "../widget/manifest.js";
import { WIDGET_CACHE, widgetRoutes } from "./widget.js";

const dir = mkdtempSync(join(tmpdir(), "ipatlas-widget-route-"));
let manifest: WidgetManifest;
let app: ReturnType<typeof widgetRoutes>;

beforeAll(async () => {
  manifest = await buildWidget(dir);
  // The widget routes read only the config; the rest of AppDeps is not touched here.
  const deps = { config: loadConfig({ IPATLAS_PUBLIC_URL: "https://geo.example.com" }) } as unknown as AppDeps;
  app = widgetRoutes(deps, { dir });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sri = (bytes: ArrayBuffer) => `sha384-${createHash("sha384").update(Buffer.from(bytes)).digest("base64")}`;

describe("widget routes", () => {
  it("serves /widget.js with a short, must-revalidate cache and CORS for SRI", async () => {
    const res = await app.request("/widget.js");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe(WIDGET_CACHE.current);
    expect(res.headers.get("cache-control")).toMatch(/must-revalidate/);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("etag")).toBe(`"${manifest.hash}"`);
    expect(sri(await res.arrayBuffer())).toBe(manifest.integrity);
  });

  it("answers a matching If-None-Match with 304", async () => {
    const res = await app.request("/widget.js", { headers: { "if-none-match": `"${manifest.hash}"` } });
    expect(res.status).toBe(304);
    expect(await res.text()).toBe("");
  });

  it("serves the versioned file immutable for a year, gzipped when asked", async () => {
    const res = await app.request(`/widget/${manifest.file}`, { headers: { "accept-encoding": "gzip, br" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(res.headers.get("content-encoding")).toBe("gzip");
    expect(res.headers.get("vary")).toBe("Accept-Encoding");
    const body = gunzipSync(Buffer.from(await res.arrayBuffer()));
    expect(body.byteLength).toBe(manifest.bytes);
    expect(sri(body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer)).toBe(manifest.integrity);
  });

  it("does not serve unknown hashes or other file names", async () => {
    expect((await app.request("/widget/0000000000000000.js")).status).toBe(404);
    expect((await app.request("/widget/manifest.json")).status).toBe(404);
    expect((await app.request("/widget/..%2Fmanifest.json")).status).toBe(404);
  });

  it("serves the demo page under a strict CSP, asking the public URL for the widget", async () => {
    const res = await app.request("http://127.0.0.1:8787/widget/demo?key=ipa_pk_Abc-123");
    expect(res.status).toBe(200);
    const csp = res.headers.get("content-security-policy")!;
    expect(csp).toContain("script-src 'self' https://geo.example.com");
    expect(csp).toContain("connect-src https://geo.example.com");
    expect(csp).not.toContain("unsafe-inline");
    const html = await res.text();
    expect(html).toContain(`src="https://geo.example.com/widget/${manifest.file}" integrity="${manifest.integrity}"`);
    expect(html).toContain('data-key="ipa_pk_Abc-123"');
    expect(html).toContain("--origin 127.0.0.1:8787");

    const hostile = await (await app.request(`/widget/demo?key=${encodeURIComponent('ipa_pk_x"><script>alert(1)</script>')}`)).text();
    expect(hostile).toContain('data-key=""');
    expect(hostile).not.toContain("alert(1)");
  });
});
