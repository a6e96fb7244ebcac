import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { UUID_BYTES, UUID_CHARS, uuidText, writeUuidBytes, writeUuidText } from "./uuid-bytes.js";

describe("writeUuidBytes", () => {
  it("writes a UUID's bytes from its text with or without dashes, in either case", () => {
    const uuid = randomUUID();
    const expected = [...Buffer.from(uuid.replaceAll("-", ""), "hex")];
    for (const text of [uuid, uuid.toUpperCase(), uuid.replaceAll("-", "")]) {
      const out = new Uint8Array(18);
      expect(writeUuidBytes(text, out, 1), text).toBe(true);
      expect([...out.subarray(1, 17)]).toEqual(expected);
    }
  });

  it("says when the text is not a UUID", () => {
    const uuid = "0192f000-abcd-7ef0-8123-999999999990";
    const out = new Uint8Array(16);
    for (const text of [
      "not-a-uuid",
      "",
      uuid.slice(0, 35),
      `${uuid}0`,
      uuid.replace("-", "0"),
      `${uuid.slice(0, 7)}-${uuid.slice(7, 8)}${uuid.slice(9)}`,
      uuid.replace("a", "g"),
      uuid.replace("a", "é"),
      uuid.replace("a", "\u0161"),
      uuid.replace("a", "\uff41"),
      uuid.replaceAll("-", "").replace("9", "-"),
    ]) {
      expect(writeUuidBytes(text, out, 0), JSON.stringify(text)).toBe(false);
    }
  });

  it("writes a UUID's text from its bytes, lower case with dashes, where it is told", () => {
    const uuids = Array.from({ length: 50 }, () => randomUUID());
    const bytes = new Uint8Array(1 + uuids.length * UUID_BYTES);
    uuids.forEach((uuid, i) => writeUuidBytes(uuid.toUpperCase(), bytes, 1 + i * UUID_BYTES));
    const text = Buffer.alloc(2 + uuids.length * UUID_CHARS, "x");
    uuids.forEach((_, i) => writeUuidText(bytes, 1 + i * UUID_BYTES, text, 2 + i * UUID_CHARS));
    expect(text.toString("latin1")).toBe(`xx${uuids.join("")}`);
    uuids.forEach((uuid, i) => expect(uuidText(bytes, 1 + i * UUID_BYTES)).toBe(uuid));
    expect(uuidText(Buffer.from("00ff10a0b1c2d3e4f5060708090a0b0c", "hex"))).toBe("00ff10a0-b1c2-d3e4-f506-0708090a0b0c");
  });
});
