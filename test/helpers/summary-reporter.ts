/**
 * Ends a run with one plain line, `Tests: N passed, N failed, N skipped`, which CI and other
 * tools read without knowing vitest's own summary format. Added beside the default reporter.
 */
import type { Reporter, TestModule } from "vitest/node";

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") counts.passed++;
        else if (state === "failed") counts.failed++;
        else counts.skipped++;
      }
      // a file that failed before its tests ran (an import error) counts as a failure
      if (module.state() === "failed" && ![...module.children.allTests()].some((t) => t.result().state === "failed")) counts.failed++;
    }
    process.stdout.write(`\nTests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
  }
}
