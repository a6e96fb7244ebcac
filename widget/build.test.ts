import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { buildWidget } from "./build.js";

/** Issue #5: everything the widget loads, gzipped, at most 12 KB. */
const WIDGET_GZIP_BUDGET = 12 * 1024;

const outDir = mkdtempSync(join(tmpdir(), "ipatlas-widget-build-"));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe("widget build", async () => {
  const manifest = await buildWidget(outDir);
  const code = readFileSync(join(outDir, "widget.js"));

  it(`stays within ${WIDGET_GZIP_BUDGET} bytes gzipped`, () => {
    const gzipped = gzipSync(code, { level: 9 });
    console.log(`widget.js: ${code.byteLength} bytes, ${gzipped.byteLength} gzipped (budget ${WIDGET_GZIP_BUDGET})`);
    expect(gunzipSync(gzipped).equals(code)).toBe(true);
    expect(gzipped.byteLength).toBeLessThanOrEqual(WIDGET_GZIP_BUDGET);
    expect(manifest.gzipBytes).toBe(gzipped.byteLength);
  });

  it("writes the versioned copy and a manifest whose SRI value matches its bytes", () => {
    const versioned = readFileSync(join(outDir, manifest.file));
    expect(versioned.equals(code)).toBe(true);
    expect(manifest.file).toBe(`${manifest.hash}.js`);
    expect(manifest.hash).toBe(createHash("sha256").update(code).digest("hex").slice(0, 16));
    expect(manifest.integrity).toBe(`sha384-${createHash("sha384").update(code).digest("base64")}`);
    expect(JSON.parse(readFileSync(join(outDir, "manifest.json"), "utf8"))).toEqual(manifest);
  });

  it("bundles browser code only: no zod, no Node built-ins", () => {
    const text = code.toString("utf8");
    expect(text).not.toMatch(/require\(|node:|ZodError|zod/);
  });
});
