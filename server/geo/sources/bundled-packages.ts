/** Where the bundled data packages are installed, and their versions (the data's build date). */
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { readFileSync } from "node:fs";

const require = createRequire(import.meta.url);

export interface BundledPackage {
  name: string;
  version: string;
  dir: string;
}

export function bundledPackage(name: string): BundledPackage {
  const manifestPath = require.resolve(`${name}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as { version: string };
  return { name, version: manifest.version, dir: dirname(manifestPath) };
}

/**
 * ip-location-db versions end in the build stamp (`2.3.2026061719` = 2026-06-17 19h UTC);
 * that instant as ISO 8601, or null when the version has no stamp.
 */
export function buildDateOfVersion(version: string): string | null {
  const stamp = /\.(\d{4})(\d{2})(\d{2})(\d{2})?$/.exec(version);
  return stamp ? `${stamp[1]}-${stamp[2]}-${stamp[3]}T${stamp[4] ?? "00"}:00:00.000Z` : null;
}
