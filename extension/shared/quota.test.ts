import { describe, expect, it } from "vitest";
import { describeQuota, isQuotaLow } from "./quota.js";

describe("quota", () => {
  const dec1 = Date.UTC(2026, 11, 1);
  it("says how much is left and until when", () => {
    expect(describeQuota({ limit: 1000, remaining: 913, resetAt: dec1 })).toMatch(/^913 of 1,000 lookups left this month \(until Dec 1\)$/);
    expect(describeQuota({ limit: null, remaining: null, resetAt: null })).toBeNull();
    expect(describeQuota(null)).toBeNull();
  });
  it("is low at a tenth of the plan or 50 lookups", () => {
    expect(isQuotaLow({ limit: 1000, remaining: 101, resetAt: dec1 })).toBe(false);
    expect(isQuotaLow({ limit: 1000, remaining: 100, resetAt: dec1 })).toBe(true);
    expect(isQuotaLow({ limit: 100, remaining: 50, resetAt: dec1 })).toBe(true);
    expect(isQuotaLow({ limit: null, remaining: null, resetAt: null })).toBe(false);
  });
});
