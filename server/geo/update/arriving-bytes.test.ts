import { describe, expect, it } from "vitest";
import { ArrivingBytes } from "./arriving-bytes.js";

const pieces = [Buffer.from("abc"), Buffer.from("defg"), Buffer.from("h")];
const collect = (expected: number | null, from = pieces) => {
  const arriving = new ArrivingBytes(expected);
  for (const piece of from) arriving.push(piece);
  return arriving;
};

describe("ArrivingBytes", () => {
  it("puts pieces of a size known ahead into one buffer", () => {
    const arriving = collect(8);
    expect(arriving.length).toBe(8);
    expect(arriving.bytes().toString()).toBe("abcdefgh");
  });

  it("joins the pieces when the size is unknown, or turns out too small or too large", () => {
    expect(collect(null).bytes().toString()).toBe("abcdefgh");
    expect(collect(5).bytes().toString()).toBe("abcdefgh");
    const short = collect(100);
    expect(short.length).toBe(8);
    expect(short.bytes().toString()).toBe("abcdefgh");
  });

  it("keeps what it holds when a piece's own buffer is reused after push", () => {
    const reused = Buffer.from("xyz");
    const arriving = new ArrivingBytes(6);
    arriving.push(reused);
    reused.write("123");
    arriving.push(reused);
    expect(arriving.bytes().toString()).toBe("xyz123");
    const unknown = new ArrivingBytes(null);
    const again = Buffer.from("xyz");
    unknown.push(again);
    again.write("123");
    unknown.push(again);
    expect(unknown.bytes().toString()).toBe("xyz123");
  });
});
