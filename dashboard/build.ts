/**
 * `npm run build:dashboard`: bundles dashboard/src into dist/dashboard/ as
 *   index.html                  the page, pointing at the hashed assets
 *   assets/app-<hash>.js/.css   content-hashed, so the server can cache them forever
 */
import { build, type Plugin } from "esbuild";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

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

export async function buildDashboard(outDir = DEFAULT_OUT_DIR): Promise<{ js: string; css: string; jsBytes: number }> {
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

  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(join(outDir, "assets"), { recursive: true });
  writeFileSync(join(outDir, "assets", js), code);
  writeFileSync(join(outDir, "assets", cssFile), css);
  const html = readFileSync(join(ROOT, "dashboard/index.html"), "utf8").replace("APP_JS", js).replace("APP_CSS", cssFile);
  writeFileSync(join(outDir, "index.html"), html);
  return { js, css: cssFile, jsBytes: code.byteLength };
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  const { js, css, jsBytes } = await buildDashboard();
  console.log(`dashboard built: dist/dashboard/assets/${js} (${(jsBytes / 1024).toFixed(1)} KiB), ${css}`);
}
