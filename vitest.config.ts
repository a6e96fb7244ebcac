import { defineConfig } from "vitest/config";

// Unit tests sit beside their modules (`*.test.ts`); integration and end-to-end tests live in
// test/. Both start real things (servers, databases, Chromium), so timeouts are generous and
// files run two at a time on this two-core machine.
export default defineConfig({
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  test: {
    include: ["{lib,server,widget,dashboard,extension,test}/**/*.test.{ts,tsx}"],
    exclude: ["**/node_modules/**", ".output/**", "dist/**"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // expect.poll gives up after 1 s by default: too soon for Chromium on a busy shared machine.
    // A poll that passes returns at once, so the longer bound costs a passing run nothing.
    expect: { poll: { timeout: 10_000 } },
    maxWorkers: 2,
    // Tests talk to loopback only: no server they start may schedule a download of new data.
    env: { IPATLAS_UPDATE_EVERY: "off" },
    reporters: ["default", "./test/helpers/summary-reporter.ts"],
  },
});
