import { describe, expect, it } from "vitest";
import { SignInThrottle } from "./sign-in-throttle.js";

function recordingThrottle() {
  const slept: number[] = [];
  let clock = 1_000_000;
  const throttle = new SignInThrottle({
    baseDelayMs: 100,
    maxDelayMs: 1_000,
    forgetAfterMs: 60_000,
    sleep: async (ms) => void slept.push(ms),
    now: () => clock,
  });
  return { throttle, slept, advance: (ms: number) => (clock += ms) };
}

describe("SignInThrottle", () => {
  it("doubles the delay with each wrong token, up to the cap", async () => {
    const { throttle, slept } = recordingThrottle();
    for (let i = 0; i < 6; i++) expect(await throttle.attempt("1.2.3.4", () => false)).toBe("refused");
    expect(slept).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it("keeps addresses apart and clears an address on a right token", async () => {
    const { throttle, slept } = recordingThrottle();
    await throttle.attempt("a", () => false);
    await throttle.attempt("a", () => false);
    await throttle.attempt("b", () => false);
    expect(slept).toEqual([100, 200, 100]);
    expect(await throttle.attempt("a", () => true)).toBe("accepted");
    expect(throttle.failures("a")).toBe(0);
    await throttle.attempt("a", () => false);
    expect(slept.at(-1)).toBe(100);
  });

  it("runs parallel attempts of one address one after another", async () => {
    const order: string[] = [];
    const throttle = new SignInThrottle({
      baseDelayMs: 5,
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    });
    const results = await Promise.all(
      [1, 2, 3].map((n) =>
        throttle.attempt("x", () => {
          order.push(`check${n}`);
          return false;
        }),
      ),
    );
    expect(results).toEqual(["refused", "refused", "refused"]);
    expect(order).toEqual(["check1", "check2", "check3"]);
    expect(throttle.failures("x")).toBe(3);
  });

  it("forgets wrong tokens after a quiet period", async () => {
    const { throttle, slept, advance } = recordingThrottle();
    await throttle.attempt("a", () => false);
    await throttle.attempt("a", () => false);
    advance(61_000);
    await throttle.attempt("a", () => false);
    expect(slept).toEqual([100, 200, 100]);
  });

  it("answers busy at once past the queue limit, and drops attempts whose client left", async () => {
    const throttle = new SignInThrottle({ baseDelayMs: 10_000, maxQueued: 2 });
    // the first wrong token sleeps 10 s; its client leaves after 50 ms
    const gone = new AbortController();
    const checked: string[] = [];
    const first = throttle.attempt("x", () => (checked.push("first"), false), gone.signal);
    const leaving = new AbortController();
    const second = throttle.attempt("x", () => (checked.push("second"), false), leaving.signal);
    expect(await throttle.attempt("x", () => true)).toBe("busy");
    leaving.abort();
    const started = performance.now();
    setTimeout(() => gone.abort(), 50);
    expect(await first).toBe("refused");
    expect(await second).toBe("refused");
    // the right token now waits for nobody
    expect(await throttle.attempt("x", () => true)).toBe("accepted");
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(checked).toEqual(["first"]);
  });
});
