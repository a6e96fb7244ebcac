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

describe("convertAndStore's answer", () => {
  it("is made once, while the rows are written, and comes back with an accepted bulk only", async () => {
    const { convertAndStore } = await import("./convert-and-store.js");
    const { createGeoEngine } = await import("../geo/engine/engine.js");
    const { createStorage } = await import("../storage/index.js");
    const { makeDataDir } = await import("../../test/helpers/server.js");
    const dataDir = makeDataDir();
    const engine = await createGeoEngine({ dataDir, publicBaseUrl: () => "http://127.0.0.1:8787", logger: { info() {}, warn() {}, error() {} } as never });
    const storage = await createStorage({ dataDir, sqliteWriterThread: true });
    try {
      const project = await storage.createProject({ name: "answers", plan: "starter" });
      const inputs = Array.from({ length: 6000 }, (_, i) => `${1 + (i % 200)}.${i % 256}.${(i * 7) % 256}.1`);
      let committed = false;
      const answeredWhile: boolean[] = [];
      const answerWith = async (items: Array<{ uniqueId: string }>) => {
        answeredWhile.push(committed);
        return items.map((item) => item.uniqueId);
      };
      // the rows are committed once this resolves: the first answer must have started before
      const watchCommits = storage.commitConversions.bind(storage);
      storage.commitConversions = (batch) => watchCommits(batch).finally(() => (committed = true));

      const outcome = await convertAndStore({ storage, engine }, project, inputs, new Date(), null, answerWith);
      expect(outcome.accepted).toBe(true);
      expect(answeredWhile).toEqual([false]);
      if (!outcome.accepted) return;
      expect(outcome.answer).toEqual(outcome.items.map((item) => item.uniqueId));
      expect(await storage.getConversion(project.id, outcome.answer[5999]!)).not.toBeNull();

      // 12000 is over the starter plan's 10000 a month: refused whole by the storage, no answer
      committed = false;
      answeredWhile.length = 0;
      const refused = await convertAndStore({ storage, engine }, project, inputs, new Date(), null, answerWith);
      expect(refused.accepted).toBe(false);
      expect("answer" in refused).toBe(false);
    } finally {
      await storage.close();
      await engine.close();
    }
  });
});
