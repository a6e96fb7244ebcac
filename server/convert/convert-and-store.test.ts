import { describe, expect, it } from "vitest";
import { storableText } from "./convert-and-store.js";

describe("storableText", () => {
  it("replaces NUL and unpaired surrogates, keeps everything else", () => {
    expect(storableText("8.8.8.8")).toBe("8.8.8.8");
    expect(storableText("a\u0000b")).toBe("a\uFFFDb");
    expect(storableText("x\uD800y\uDC00")).toBe("x\uFFFDy\uFFFD");
    expect(storableText("🇬🇧")).toBe("🇬🇧");
  });
});

describe("UsageFloor", () => {
  it("keeps the highest usage per project and period", async () => {
    const { UsageFloor } = await import("./convert-and-store.js");
    const floor = new UsageFloor(2);
    floor.raise("p", "2026-11", 5);
    floor.raise("p", "2026-11", 3);
    expect(floor.get("p", "2026-11")).toBe(5);
    expect(floor.get("p", "2026-12")).toBe(0);
    floor.raise("q", "2026-11", 1);
    floor.raise("r", "2026-11", 1); // over the cap: starts afresh rather than growing
    expect(floor.get("p", "2026-11")).toBe(0);
    expect(floor.get("r", "2026-11")).toBe(1);
  });
});
