/**
 * `npm run build:widget`: bundles widget/src into dist/widget/ as
 *   widget.js        the always-current file (/widget.js, short cache)
 *   <hash>.js        the same bytes under a content hash (/widget/<hash>.js, immutable)
 *   manifest.json    hash, file name, SRI value and sizes; the server and the CLI read it
 *   demo.html, demo.css  the demo page (/widget/demo)
 */
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import type { WidgetManifest } from "../server/widget/manifest.js";

const ROOT = resolve(import.meta.dirname, "..");
export const DEFAULT_OUT_DIR = join(ROOT, "dist/widget");

/** Bundles the widget to one minified IIFE; returns its bytes. */
export async function bundleWidget(): Promise<Uint8Array> {
  const { version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
  const result = await build({
    entryPoints: [join(ROOT, "widget/src/index.ts")],
    bundle: true,
    write: false,
    format: "iife",
    minify: true,
    target: ["es2020"],
    platform: "browser",
    jsx: "automatic",
    jsxImportSource: "preact",
    legalComments: "none",
    define: { __IPATLAS_WIDGET_VERSION__: JSON.stringify(version), "process.env.NODE_ENV": '"production"' },
    banner: { js: `/*! IP Atlas widget ${version} | MIT, includes Preact (MIT) */` },
    logLevel: "warning",
  });
  return result.outputFiles[0]!.contents;
}

export function describeBundle(code: Uint8Array): WidgetManifest {
  const hash = createHash("sha256").update(code).digest("hex").slice(0, 16);
  return {
    hash,
    file: `${hash}.js`,
    integrity: `sha384-${createHash("sha384").update(code).digest("base64")}`,
    bytes: code.byteLength,
    gzipBytes: gzipSync(code, { level: 9 }).byteLength,
  };
}

export async function buildWidget(outDir = DEFAULT_OUT_DIR): Promise<WidgetManifest> {
  const code = await bundleWidget();
  const manifest = describeBundle(code);
  // Older <hash>.js files stay: pages that pinned them (with SRI) keep working after an upgrade.
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, "widget.js"), code);
  writeFileSync(join(outDir, manifest.file), code);
  // The manifest goes last: the server reloads when it changes, and then the script is there.
  writeFileSync(join(outDir, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
  for (const file of ["demo.html", "demo.css"]) copyFileSync(join(ROOT, "widget/demo", file), join(outDir, file));
  return manifest;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const manifest = await buildWidget();
  console.log(`widget: ${manifest.bytes} bytes, ${manifest.gzipBytes} gzipped -> dist/widget/${manifest.file}`);
}
