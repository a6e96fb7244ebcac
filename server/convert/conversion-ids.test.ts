import { describe, expect, it } from "vitest";
import { validate, version } from "uuid";
import { conversionIds } from "./conversion-ids.js";

describe("conversionIds", () => {
  it("makes valid version 7 UUIDs, unique and in increasing order across calls", () => {
    const ids = [...conversionIds(1), ...conversionIds(5000), ...conversionIds(3), ...conversionIds(1)];
    expect(ids).toHaveLength(5005);
    for (const id of ids) {
      expect(validate(id)).toBe(true);
      expect(version(id)).toBe(7);
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
  });

  it("carries the time it was made in its first 48 bits", () => {
    const before = Date.now();
    const [id] = conversionIds(1);
    const ms = parseInt(id!.replace(/-/g, "").slice(0, 12), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(Date.now() + 1);
  });
});
