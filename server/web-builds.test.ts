import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ensureWebBuilds, type WebBuild } from "./web-builds.js";

const dir = mkdtempSync(join(tmpdir(), "ipatlas-builds-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("ensureWebBuilds", () => {
  it("builds what is missing, once, and leaves present builds alone", async () => {
    const built: string[] = [];
    const present: WebBuild = { name: "widget", marker: join(dir, "present"), serves: "/widget.js", build: async () => built.push("widget") };
    writeFileSync(present.marker, "");
    const absent: WebBuild = {
      name: "dashboard",
      marker: join(dir, "absent"),
      serves: "/dashboard",
      build: async () => {
        built.push("dashboard");
        writeFileSync(join(dir, "absent"), "");
      },
    };
    const lines: string[] = [];
    expect(await ensureWebBuilds((line) => lines.push(line), [present, absent])).toEqual([]);
    expect(built).toEqual(["dashboard"]);
    expect(lines).toEqual(["The dashboard is not built yet: building it now (once)…"]);
    expect(await ensureWebBuilds(() => {}, [present, absent])).toEqual([]);
    expect(built).toEqual(["dashboard"]);
  });

  it("says plainly what answers 404 and what to run when a build cannot be made", async () => {
    const failing: WebBuild = {
      name: "widget",
      marker: join(dir, "never"),
      serves: "/widget.js",
      build: async () => {
        throw new Error("Cannot find package 'esbuild'");
      },
    };
    const [problem] = await ensureWebBuilds(() => {}, [failing]);
    expect(problem).toBe("The widget is not built and building it failed (Cannot find package 'esbuild'): /widget.js answer 404. Run: npm run build:web");
  });
});
