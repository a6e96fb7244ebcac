import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { writeUuidBytes } from "./uuid-bytes.js";

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
});
