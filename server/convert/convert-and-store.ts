/**
 * Convert addresses and store them against the project's quota in one step
 * (docs/api.md#conversion-records, #plans-and-quota): the storage reserves `n` of the month's
 * allowance atomically together with the inserts, so either every record is stored and counted or
 * none is.
 */
import { planLimit } from "../../lib/schemas/api.js";
import type { GeoEngine, ConvertResult } from "../geo/types.js";
import type { NewConversion, Project, Storage } from "../storage/types.js";
import { periodOf } from "./period.js";
import { conversionIds } from "./conversion-ids.js";
import { TimeSlice } from "../time-slice.js";

/**
 * Text both databases can store and index: NUL and unpaired surrogates (which PostgreSQL refuses
 * in text and JSON) become U+FFFD. Such input is never an address, so only the stored/echoed
 * text of an invalid input changes, the same way on every backend.
 */
export function storableText(text: string): string {
  return text.replace(/\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");
}

/**
 * The highest usage this process has seen per project and period. Usage only grows within a
 * period, so a request that would not fit even on this floor is refused before any conversion
 * work; the atomic reservation in storage stays the only thing that accepts.
 */
export class UsageFloor {
  private readonly seen = new Map<string, number>();
  constructor(private readonly maxEntries = 10_000) {}

  get(projectId: string, period: string): number {
    return this.seen.get(`${projectId} ${period}`) ?? 0;
  }

  raise(projectId: string, period: string, used: number): void {
    const key = `${projectId} ${period}`;
    if (used <= (this.seen.get(key) ?? 0)) return;
    if (this.seen.size >= this.maxEntries) this.seen.clear();
    this.seen.set(key, used);
  }
}

/**
 * An input converted, with its id: the row the storage takes (NewConversion) and what the answer
 * is made from. Its values are the engine result's own, read through: spreading the result would
 * read `data`, which a located result builds only when read (geo/engine/located-result.ts).
 */
export class ConvertedItem implements NewConversion {
  /** set once the whole request is converted */
  completedAt = 0;
  constructor(
    readonly input: string,
    readonly uniqueId: string,
    readonly result: ConvertResult,
    readonly startedAt: number,
  ) {}
  get status(): ConvertResult["status"] {
    return this.result.status;
  }
  get data(): ConvertResult["data"] {
    return this.result.data;
  }
  get parts(): ConvertResult["parts"] {
    return this.result.parts;
  }
  get address(): ConvertResult["address"] {
    return this.result.address;
  }
}

/** `answer`: what `answerWith` made of the items, when the request passed it */
export type ConvertOutcome<A = undefined> =
  | { accepted: true; items: ConvertedItem[]; answer: A; limit: number | null; used: number; resetAt: Date }
  | { accepted: false; limit: number | null; used: number; resetAt: Date };

export async function convertAndStore<A = undefined>(
  deps: { storage: Storage; engine: GeoEngine; usageFloor?: UsageFloor },
  project: Project,
  inputs: readonly string[],
  now = new Date(),
  /** language of the names (geo/lang); stored as answered */
  lang: string | null = null,
  /**
   * The answer made from the items (a bulk's encoded `data`). It runs while the database writes
   * them, on an event loop that would otherwise wait, instead of after the commit; it is
   * discarded if the batch is refused.
   */
  answerWith?: (items: ConvertedItem[]) => Promise<A>,
): Promise<ConvertOutcome<A>> {
  const period = periodOf(now);
  const limit = planLimit(project.plan);
  const floor = deps.usageFloor?.get(project.id, period.id) ?? 0;
  if (limit !== null && floor + inputs.length > limit) return { accepted: false, limit, used: floor, resetAt: period.end };

  const startedAt = now.getTime();
  const items: ConvertedItem[] = new Array(inputs.length);
  // a large bulk gives other requests a turn every few milliseconds instead of holding the event
  // loop; a single address (the GET hot path) does not need the clock
  const slice = inputs.length > 1 ? new TimeSlice() : null;
  await slice?.begin(inputs.length);
  // Time-ordered (v7) ids land at the end of the unique-id index instead of on a random page of
  // it, so a batch dirties a few index pages rather than one per row.
  const ids = conversionIds(inputs.length);
  for (let i = 0; i < inputs.length; i++) {
    if (slice?.due()) await slice.pause();
    const input = storableText(inputs[i]!);
    items[i] = new ConvertedItem(input, ids[i]!, deps.engine.convert(input, now, lang), startedAt);
  }
  const completedAt = Date.now();
  for (const item of items) item.completedAt = completedAt;
  let answer: Promise<A> | undefined;
  const startAnswer =
    answerWith &&
    (() => {
      if (answer) return;
      answer = answerWith(items);
      // a failure is thrown where the answer is awaited, not as an unhandled rejection meanwhile
      answer.catch(() => {});
    });
  const result = await deps.storage.commitConversions({
    projectId: project.id,
    period: period.id,
    limit,
    conversions: items,
    onWriting: startAnswer,
  });
  deps.usageFloor?.raise(project.id, period.id, result.used);
  if (!result.accepted) return { accepted: false, limit, used: result.used, resetAt: period.end };
  startAnswer?.();
  return { accepted: true, items, answer: (await answer) as A, limit, used: result.used, resetAt: period.end };
}
