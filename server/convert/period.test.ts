import { describe, expect, it } from "vitest";
import { periodOf } from "./period.js";

describe("periodOf", () => {
  it("is the UTC calendar month", () => {
    const period = periodOf(new Date("2026-11-30T23:59:59.999Z"));
    expect(period.id).toBe("2026-11");
    expect(period.start.toISOString()).toBe("2026-11-01T00:00:00.000Z");
    expect(period.end.toISOString()).toBe("2026-12-01T00:00:00.000Z");
  });

  it("rolls over the year", () => {
    const period = periodOf(Date.UTC(2026, 11, 31, 12));
    expect(period.id).toBe("2026-12");
    expect(period.end.toISOString()).toBe("2027-01-01T00:00:00.000Z");
  });
});
