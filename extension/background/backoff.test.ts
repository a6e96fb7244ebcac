import { describe, expect, it } from "vitest";
import { ApiError } from "../../lib/client/index.js";
import { MESSAGES } from "../../lib/schemas/messages.js";
import { createBackoff } from "./backoff.js";

describe("createBackoff", () => {
  it("after a 429 stays blocked until the server's reset time", () => {
    let t = 1_000;
    const backoff = createBackoff({ now: () => t });
    backoff.failed(new ApiError({ kind: "quota-exceeded", status: 429, message: MESSAGES.quotaExceeded, retryAt: 90_000 }));
    expect(backoff.blocking()).toMatchObject({ kind: "quota-exceeded", retryAt: 90_000 });
    t = 89_999;
    expect(backoff.blocking()).not.toBeNull();
    t = 90_000;
    expect(backoff.blocking()).toBeNull();
  });

  it("uses its own pause when the 429 carried no readable reset", () => {
    let t = 0;
    const backoff = createBackoff({ now: () => t, limitedPauseMs: 60_000 });
    backoff.failed(new ApiError({ kind: "rate-limited", status: 429, message: MESSAGES.tooManyRequests }));
    expect(backoff.blocking()?.retryAt).toBe(60_000);
  });

  it("doubles the pause while the server stays unreachable, and forgets after a success", () => {
    let t = 0;
    const backoff = createBackoff({ now: () => t, firstPauseMs: 1_000, maxPauseMs: 3_000 });
    const down = new ApiError({ kind: "unreachable", status: 0, message: "down" });
    const pauses: number[] = [];
    for (let i = 0; i < 4; i++) {
      backoff.failed(down);
      pauses.push(backoff.blocking()!.retryAt! - t);
      t = backoff.blocking()!.retryAt!;
    }
    expect(pauses).toEqual([1_000, 2_000, 3_000, 3_000]);
    backoff.succeeded();
    expect(backoff.blocking()).toBeNull();
    backoff.failed(down);
    expect(backoff.blocking()!.retryAt! - t).toBe(1_000);
  });
});
