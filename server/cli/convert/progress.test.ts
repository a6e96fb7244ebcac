/** The progress line `ipatlas convert` draws on a terminal, drawn into a stand-in terminal stream. */
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { terminalProgress } from "./progress.js";

/** a stream that says it is a terminal, keeping what is drawn on it */
function fakeTerminal() {
  let drawn = "";
  const stream = new Writable({ write: (chunk, _encoding, done) => ((drawn += String(chunk)), done()) });
  Object.assign(stream, { isTTY: true, columns: 120, rows: 40, cursorTo: () => true, clearLine: () => true, moveCursor: () => true });
  return { stream, drawn: () => drawn };
}

describe("terminalProgress", () => {
  it("draws the share of the input read and the addresses done", async () => {
    const terminal = fakeTerminal();
    const progress = await terminalProgress(terminal.stream, 1000);
    progress.update(500, 1234);
    progress.stop();
    expect(terminal.drawn()).toMatch(/50% \| 1234 addresses/);
  });

  it("draws the count and the rate only when the input's size is unknown", async () => {
    const terminal = fakeTerminal();
    const progress = await terminalProgress(terminal.stream, null);
    progress.update(500, 77);
    progress.stop();
    expect(terminal.drawn()).toMatch(/77 addresses \| \d+k?\/s/);
    expect(terminal.drawn()).not.toMatch(/%/);
  });
});
