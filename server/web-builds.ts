/**
 * The widget and the dashboard are built files (dist/widget, dist/dashboard). `npm ci` builds
 * them (the `prepare` script); when they are still missing at start (installed with
 * --ignore-scripts, or dist/ deleted) the server builds them once before listening, and if that
 * cannot work it says plainly which URLs will answer 404 and what to run.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { DASHBOARD_DIST_DIR } from "./admin/dashboard-files.js";
import { WIDGET_DIST_DIR } from "./widget/manifest.js";

export interface WebBuild {
  name: "widget" | "dashboard";
  /** the file whose presence means "built" */
  marker: string;
  /** what answers 404/503 without it */
  serves: string;
  build(): Promise<unknown>;
}

export const WEB_BUILDS: readonly WebBuild[] = [
  {
    name: "widget",
    marker: join(WIDGET_DIST_DIR, "manifest.json"),
    serves: "/widget.js, /widget/<hash>.js and /widget/demo",
    build: async () => (await import("../widget/build.js")).buildWidget(),
  },
  {
    name: "dashboard",
    marker: join(DASHBOARD_DIST_DIR, "index.html"),
    serves: "/dashboard",
    build: async () => (await import("../dashboard/build.js")).buildDashboard(),
  },
];

/**
 * Builds what is missing; returns one plain sentence per build that is still absent. `print`
 * gets a line before each build, as it takes a few seconds.
 */
export async function ensureWebBuilds(print: (line: string) => void, builds: readonly WebBuild[] = WEB_BUILDS): Promise<string[]> {
  const missing: string[] = [];
  for (const build of builds) {
    if (existsSync(build.marker)) continue;
    print(`The ${build.name} is not built yet: building it now (once)…`);
    try {
      await build.build();
    } catch (error) {
      missing.push(
        `The ${build.name} is not built and building it failed (${(error as Error).message.split("\n")[0]}): ` +
          `${build.serves} answer 404. Run: npm run build:web`,
      );
      continue;
    }
    if (!existsSync(build.marker)) missing.push(`The ${build.name} is not built: ${build.serves} answer 404. Run: npm run build:web`);
  }
  return missing;
}
