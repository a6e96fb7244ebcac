import { describe, expect, it } from "vitest";
import { shortestFloat32 } from "./located.js";

describe("shortestFloat32", () => {
  it("gives back the decimals a 32-bit float was made from", () => {
    expect(shortestFloat32(Math.fround(51.5143))).toBe(51.5143);
    expect(shortestFloat32(Math.fround(-0.0912244))).toBe(-0.0912244);
    expect(shortestFloat32(Math.fround(37.386))).toBe(37.386);
    expect(shortestFloat32(0)).toBe(0);
  });

  it("leaves values that are no 32-bit float, and null, as they are", () => {
    expect(shortestFloat32(35.68536)).toBe(35.68536);
    expect(shortestFloat32(0.1)).toBe(0.1);
    expect(shortestFloat32(null)).toBeNull();
  });
});
