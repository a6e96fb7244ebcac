/**
 * `npm run build:dashboard`: bundles dashboard/src into dist/dashboard/ as
 *   index.html                  the page, pointing at the hashed assets
 *   assets/app-<hash>.js/.css   content-hashed, so the server can cache them forever
 *   assets/map-<hash>.json      the map's country outlines, drawn once here and fetched only
 *                               when the map is shown (they are most of what the map weighs)
 */
import { build, type Plugin } from "esbuild";
import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import topology from "world-atlas/countries-110m.json" with { type: "json" };
import type { Topology } from "topojson-specification";
import { countryPaths } from "./src/map/country-paths.js";

const ROOT = resolve(import.meta.dirname, "..");
export const DEFAULT_OUT_DIR = join(ROOT, "dist/dashboard");

/**
 * zod re-exports every locale's messages as `z.locales`, which a bundler cannot drop (~200 KB of
 * the bundle). The dashboard uses none of them: English is loaded separately by zod itself.
 */
const withoutZodLocales: Plugin = {
  name: "without-zod-locales",
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({ contents: "export {};", loader: "js" }));
  },
};

const contentHash = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex").slice(0, 16);

export interface DashboardBuild {
  js: string;
  css: string;
  map: string;
  jsBytes: number;
  jsGzipBytes: number;
  mapBytes: number;
}

export async function buildDashboard(outDir = DEFAULT_OUT_DIR): Promise<DashboardBuild> {
  const result = await build({
    entryPoints: [join(ROOT, "dashboard/src/main.tsx")],
    bundle: true,
    write: false,
    format: "esm",
    minify: true,
    target: ["es2022"],
    platform: "browser",
    jsx: "automatic",
    jsxImportSource: "preact",
    legalComments: "none",
    define: { "process.env.NODE_ENV": '"production"' },
    logLevel: "warning",
    plugins: [withoutZodLocales],
  });
  const code = result.outputFiles[0]!.contents;
  const css = readFileSync(join(ROOT, "dashboard/styles.css"), "utf8");
  const js = `app-${contentHash(code)}.js`;
  const cssFile = `app-${contentHash(css)}.css`;
  const mapData = JSON.stringify(countryPaths(topology as unknown as Topology));
  const map = `map-${contentHash(mapData)}.json`;

  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(join(outDir, "assets"), { recursive: true });
  writeFileSync(join(outDir, "assets", js), code);
  writeFileSync(join(outDir, "assets", cssFile), css);
  writeFileSync(join(outDir, "assets", map), mapData);
  const html = readFileSync(join(ROOT, "dashboard/index.html"), "utf8").replace("APP_JS", js).replace("APP_CSS", cssFile).replace("MAP_DATA", map);
  writeFileSync(join(outDir, "index.html"), html);
  return { js, css: cssFile, map, jsBytes: code.byteLength, jsGzipBytes: gzipSync(code, { level: 9 }).byteLength, mapBytes: mapData.length };
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  const built = await buildDashboard();
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
  console.log(
    `dashboard built: dist/dashboard/assets/${built.js} (${kib(built.jsBytes)}, ${kib(built.jsGzipBytes)} gzipped), ${built.css}, ` +
      `${built.map} (${kib(built.mapBytes)}, fetched when the map is shown)`,
  );
}
