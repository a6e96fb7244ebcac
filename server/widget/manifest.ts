/**
 * The built widget as the server sees it: dist/widget/manifest.json (written by widget/build.ts)
 * and the script bytes, read once and re-read when a rebuild changes the manifest.
 */
import { readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { gzipSync } from "node:zlib";

export interface WidgetManifest {
  /** first 16 hex digits of the script's SHA-256 */
  hash: string;
  /** versioned file name, `<hash>.js` */
  file: string;
  /** Subresource Integrity value of the script, `sha384-…` */
  integrity: string;
  bytes: number;
  gzipBytes: number;
}

export interface WidgetBundle {
  manifest: WidgetManifest;
  code: Uint8Array;
  gzip: Uint8Array;
  /** demo page template and its stylesheet */
  demoHtml: string;
  demoCss: string;
}

export const WIDGET_DIST_DIR = resolve(import.meta.dirname, "../../dist/widget");

export function readWidgetManifest(dir = WIDGET_DIST_DIR): WidgetManifest | null {
  try {
    return JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as WidgetManifest;
  } catch {
    return null;
  }
}

export interface WidgetScript {
  code: Uint8Array;
  gzip: Uint8Array;
}

export interface WidgetFiles {
  /** the current build, or null when the widget was not built (`npm run build:widget`) */
  current(): WidgetBundle | null;
  /** a versioned `<hash>.js` of this or an earlier build, or null when there is none */
  versioned(file: string): WidgetScript | null;
}

const VERSIONED_FILE = /^[0-9a-f]{16}\.js$/;

/** Reads the built files; re-reads the current build when a rebuild rewrote the manifest. */
export function createWidgetFiles(dir = WIDGET_DIST_DIR): WidgetFiles {
  let loaded: WidgetBundle | null = null;
  let loadedStamp = "";
  // Versioned files never change (their name is their hash), so each is read once.
  const scripts = new Map<string, WidgetScript>();

  function versioned(file: string): WidgetScript | null {
    if (!VERSIONED_FILE.test(file)) return null;
    let script = scripts.get(file);
    if (!script) {
      try {
        const code = readFileSync(join(dir, file));
        script = { code, gzip: gzipSync(code, { level: 9 }) };
        scripts.set(file, script);
      } catch {
        return null;
      }
    }
    return script;
  }

  function current(): WidgetBundle | null {
    let stamp: string;
    try {
      const stat = statSync(join(dir, "manifest.json"));
      stamp = `${stat.mtimeMs}:${stat.size}`;
    } catch {
      return loaded; // never built, or mid-rebuild: keep serving what we have
    }
    if (stamp === loadedStamp) return loaded;
    try {
      const manifest = readWidgetManifest(dir);
      const script = manifest && versioned(manifest.file);
      if (!manifest || !script) return loaded;
      loaded = {
        manifest,
        ...script,
        demoHtml: readFileSync(join(dir, "demo.html"), "utf8"),
        demoCss: readFileSync(join(dir, "demo.css"), "utf8"),
      };
      loadedStamp = stamp;
    } catch {
      // a rebuild is writing the files right now; the next request tries again
    }
    return loaded;
  }

  return { current, versioned };
}
