/** The SVG flags of the flag-icons package (4:3), which the server serves at /flags/{code}.svg. */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { readdirSync } from "node:fs";

const require = createRequire(import.meta.url);

export const FLAG_SVG_DIR = join(dirname(require.resolve("flag-icons/package.json")), "flags", "4x3");

const AVAILABLE = new Set(
  readdirSync(FLAG_SVG_DIR)
    .filter((name) => name.endsWith(".svg"))
    .map((name) => name.slice(0, -4)),
);

/** True when flag-icons has `{code}.svg` (lowercase code: `gb`, also regions such as `gb-eng`). */
export function hasFlagSvg(code: string): boolean {
  return AVAILABLE.has(code);
}
