import { describe, expect, it } from "vitest";
import { JsonBytes } from "./json-bytes.js";

const text = (out: JsonBytes) => Buffer.concat(out.chunks()).toString("utf8");

describe("JsonBytes", () => {
  it("writes strings as JSON.stringify does, escapes and non-ASCII included", () => {
    const values = ["8.8.8.8", "2001:db8::1", "", 'a "quoted" \\ text', "tab\there", "Zürich", "東京", "\u007f", "\ud800 lone", "\u2028"];
    for (const value of values) {
      const out = new JsonBytes();
      out.string(value);
      expect(text(out)).toBe(JSON.stringify(value));
    }
  });

  it("keeps the order of ASCII, text and strings across small chunks", () => {
    const out = new JsonBytes(16);
    const expected: string[] = [];
    for (let i = 0; i < 200; i++) {
      out.ascii(`{"n":${i},`);
      out.text('"city":"Zürich",');
      out.text('"name":"Straße",');
      out.string(i % 3 === 0 ? "x".repeat(40) : `v${i}`);
      out.stringOrNull(i % 2 === 0 ? null : "ö");
      out.ascii("}");
      expected.push(`{"n":${i},"city":"Zürich","name":"Straße",${JSON.stringify(i % 3 === 0 ? "x".repeat(40) : `v${i}`)}${i % 2 === 0 ? "null" : '"ö"'}}`);
    }
    const chunks = out.chunks();
    expect(chunks.length).toBeGreaterThan(100);
    expect(Buffer.concat(chunks).toString("utf8")).toBe(expected.join(""));
  });

  it("gives a value larger than a chunk a chunk of its own", () => {
    const out = new JsonBytes(8);
    out.ascii("[");
    out.string("é".repeat(30));
    out.ascii("]");
    expect(text(out)).toBe(`[${JSON.stringify("é".repeat(30))}]`);
  });
});
