import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Hono } from "hono";
import { flagRoutes, FLAG_CACHE_CONTROL } from "./flags.js";
import { FLAG_SVG_DIR } from "../geo/country/flag-files.js";

// Mounted the way the app mounts it, with the app's own 404.
const app = new Hono().route("/", flagRoutes());
app.notFound((c) => c.json({ success: false, message: "Not found", code: 404 }, 404));

describe("GET /flags/{code}.svg", () => {
  it("serves the flag-icons SVG with long-lived caching", async () => {
    const response = await app.request("/flags/gb.svg");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/svg+xml");
    expect(response.headers.get("cache-control")).toBe(FLAG_CACHE_CONTROL);
    expect(response.headers.get("cache-control")).toContain("max-age=31536000");
    const body = await response.text();
    expect(body).toBe(readFileSync(join(FLAG_SVG_DIR, "gb.svg"), "utf8"));
    expect(body).toContain("<svg");
  });

  it("answers a matching If-None-Match with 304", async () => {
    const first = await app.request("/flags/us.svg");
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"flag-icons-.+-us"$/);
    const second = await app.request("/flags/us.svg", { headers: { "if-none-match": etag } });
    expect(second.status).toBe(304);
  });

  it("accepts an uppercase code", async () => {
    expect((await app.request("/flags/DE.svg")).status).toBe(200);
  });

  it.each(["/flags/zz.svg", "/flags/gb.png", "/flags/..%2Fpackage.json", "/flags/gb", "/flags/g.svg"])("falls through to 404 for %s", async (path) => {
    const response = await app.request(path);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: 404 });
  });
});
