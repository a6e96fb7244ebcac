import { describe, expect, it } from "vitest";
import { mulberry32 } from "../../../test/helpers/random-addresses.js";
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

  it("gives what the shortest toPrecision would, for any 32-bit float", () => {
    const byText = (value: number) => {
      for (let digits = 1; digits <= 9; digits++) {
        const shorter = Number(value.toPrecision(digits));
        if (Math.fround(shorter) === value) return shorter;
      }
      return value;
    };
    const random = mulberry32(20261129);
    const bits = new Uint32Array(1);
    const float = new Float32Array(bits.buffer);
    const values: number[] = [0, 1e-3, -1e-3, 0.5, -0.5, 9999.999, 1e4, 90, -90, 180, -180, 179.99999];
    for (let i = 0; i < 20_000; i++) {
      // coordinates as the files hold them (1 to 7 decimal places), and arbitrary bit patterns
      const places = 1 + (i % 7);
      values.push(Math.round((random() * 360 - 180) * 10 ** places) / 10 ** places);
      bits[0] = Math.floor(random() * 2 ** 32);
      if (Number.isFinite(float[0])) values.push(float[0]!);
    }
    for (const value of values.map(Math.fround)) expect(shortestFloat32(value)).toBe(byText(value));
  });
});
