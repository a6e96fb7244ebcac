import { spawn, spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { createLogger } from "./logger.js";

describe("createLogger", () => {
  it("writes one JSON object per line at or above its level, with fields", () => {
    const lines: string[] = [];
    const log = createLogger("warn", (line) => lines.push(line));
    log.info("hidden");
    log.warn("shown", { reqId: "r1" });
    log.error("boom", { error: new Error("bad") });
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0]!)).toEqual({ level: "warn", time: expect.stringMatching(/^\d{4}-.*Z$/), reqId: "r1", msg: "shown" });
    const error = JSON.parse(lines[1]!);
    expect(error).toMatchObject({ level: "error", msg: "boom", error: { type: "Error", message: "bad" } });
    expect(error.error.stack).toContain("logger.test.ts");
  });

  it("readable lines in the pretty format", () => {
    const lines: string[] = [];
    createLogger("info", { write: (line) => lines.push(line), format: "pretty" }).info("request", { status: 200, route: "/convert" });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: request \{"status":200,"route":"\/convert"\}$/);
  });

  it("says nothing when silent", () => {
    const lines: string[] = [];
    createLogger("silent", (line) => lines.push(line)).error("x");
    expect(lines).toEqual([]);
  });

  it("on stderr by default: every line, whole and in UTF-8, even when the process exits right after", () => {
    const script = `
      const { createLogger } = await import(${JSON.stringify(new URL("./logger.ts", import.meta.url).href)});
      const log = createLogger("info", { format: "json" });
      for (let i = 0; i < 5000; i++) log.info("request", { i, city: "Zürich 東京" });
      process.exit(0);`;
    const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { encoding: "utf8" });
    expect(child.status).toBe(0);
    const lines = child.stderr.trimEnd().split("\n").map((line) => JSON.parse(line));
    expect(lines).toHaveLength(5000);
    expect(lines.map((line) => line.i)).toEqual(Array.from({ length: 5000 }, (_, i) => i));
    expect(lines[4999]).toMatchObject({ level: "info", msg: "request", city: "Zürich 東京" });
  });

  it("on stderr, an error line goes out at once with the info lines before it, while the process is still busy", async () => {
    // info lines wait for the end of their turn of the event loop; this turn blocks for 1.5 s
    const script = `
      const { createLogger } = await import(${JSON.stringify(new URL("./logger.ts", import.meta.url).href)});
      const log = createLogger("info", { format: "json" });
      log.info("first");
      log.error("second");
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1500);
      log.info("third");
      process.exit(0);`;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script]);
    const arrived: Array<{ msg: string; at: number }> = [];
    let text = "";
    child.stderr.on("data", (chunk: Buffer) => {
      text += chunk;
      for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n")) {
        arrived.push({ msg: JSON.parse(text.slice(0, end)).msg, at: performance.now() });
        text = text.slice(end + 1);
      }
    });
    const exited = await new Promise<number>((resolve) => child.once("close", () => resolve(performance.now())));
    expect(arrived.map((line) => line.msg)).toEqual(["first", "second", "third"]);
    expect(exited - arrived[1]!.at).toBeGreaterThan(1000);
  });
});
