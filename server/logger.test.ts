import { describe, expect, it } from "vitest";
import { createLogger } from "./logger.js";

describe("createLogger", () => {
  it("writes lines at or above its level, with fields", () => {
    const lines: string[] = [];
    const log = createLogger("warn", (line) => lines.push(line));
    log.info("hidden");
    log.warn("shown", { reqId: "r1" });
    log.error("boom", { error: new Error("bad") });
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/WARN shown \{"reqId":"r1"\}$/);
    expect(lines[1]).toContain('"message":"bad"');
  });

  it("says nothing when silent", () => {
    const lines: string[] = [];
    createLogger("silent", (line) => lines.push(line)).error("x");
    expect(lines).toEqual([]);
  });
});
