/**
 * Group commit (issue #3 "Writes that scale"): callers that submit while a group is being
 * written wait together and are written by the next group, in one transaction. One group is in
 * flight at a time per queue (and, with `lightAlongside`, one light group beside a heavy one), so
 * the transaction cost is shared by everyone who arrived during it. Each caller's promise settles
 * only after the group's transaction committed. Both backends use this queue; they supply
 * `writeGroup`.
 */
import { LightAhead } from "./light-ahead.js";

export interface GroupCommitOptions {
  /** most items per group (a bound on transaction size and statement parameters) */
  maxItems?: number;
  /** weight of one item (e.g. its row count) against `maxWeight` */
  weigh?: (item: unknown) => number;
  maxWeight?: number;
  /** items this light are written ahead of heavier ones (default maxWeight / 50) */
  smallWeight?: number;
  /** told when a light item is waiting behind the group being written (a bulk in it may stop early) */
  onLightWaiting?: () => void;
  /**
   * told as each group is taken, before onLightWaiting for light items it left behind, and when
   * the last group is written: no light item waits behind a group then
   */
  onTake?: () => void;
  /**
   * true: a heavy group in flight stops early for a light item that waits (after onLightWaiting),
   * so light items do not ride along inside heavy groups
   */
  makesWay?: () => boolean;
  /** the weight an item's write actually took, when it can be less than its own (a piece of a bulk) */
  written?: (item: unknown, result: unknown) => number;
  /**
   * true (or a function that says so at the time): light items that arrive while a heavy group is
   * being written go at once, in a light group written alongside it, and a group led by a heavy
   * item takes no light ones. PostgreSQL takes concurrent writers; SQLite's writer thread takes
   * the light group after the bulk's piece or statement in progress, instead of after the group.
   */
  lightAlongside?: boolean | (() => boolean);
}

interface Pending<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

/**
 * Told after each group is written: how many submissions it held, their total weight (rows written) and
 * how long its write took (the time every submission behind it waited for its turn).
 */
export type GroupCommitObserver = (group: { items: number; weight: number; seconds: number }) => void;

const observers = new Set<GroupCommitObserver>();

/** An optional hook for metrics: every queue in the process reports its groups here. Returns the unsubscribe. */
export function observeGroupCommits(observer: GroupCommitObserver): () => void {
  observers.add(observer);
  return () => observers.delete(observer);
}

export class GroupCommitQueue<T, R> {
  private pending: Pending<T, R>[] = [];
  private running: Promise<void> | null = null;
  /** the light groups written beside a heavy one (lightAlongside) */
  private alongside: Promise<void> | null = null;
  /** the group being written is heavy */
  private writingHeavy = false;
  private readonly lightAlongside: () => boolean;
  /** items handed to submitWhenReady and not yet submitted */
  private readonly preparing = new Set<Promise<void>>();
  private readonly maxItems: number;
  private readonly maxWeight: number;
  private readonly smallWeight: number;
  private readonly weigh: (item: T) => number;
  /** whose turn it is: light submissions ahead of heavier ones, taking turns with them */
  private readonly turns = new LightAhead();
  /** a group is being written */
  private writing = false;
  private readonly onLightWaiting?: () => void;
  private readonly onTake?: () => void;
  private readonly makesWay?: () => boolean;
  private readonly written?: (item: T, result: R) => number;

  /**
   * `writeGroup` writes all items in one transaction and returns one result per item, in order;
   * `light`: the items together are light (a GET's rows, against a bulk).
   */
  constructor(
    private readonly writeGroup: (items: T[], light: boolean) => Promise<R[]>,
    options: GroupCommitOptions = {},
  ) {
    this.maxItems = options.maxItems ?? 512;
    this.maxWeight = options.maxWeight ?? 50_000;
    this.smallWeight = options.smallWeight ?? Math.floor(this.maxWeight / 50);
    this.weigh = (options.weigh as (item: T) => number) ?? (() => 1);
    this.onLightWaiting = options.onLightWaiting;
    this.onTake = options.onTake;
    this.makesWay = options.makesWay;
    this.written = options.written as ((item: T, result: R) => number) | undefined;
    const alongside = options.lightAlongside ?? false;
    this.lightAlongside = typeof alongside === "function" ? alongside : () => alongside;
  }

  /**
   * `submit` for an item still being prepared (e.g. encoded in slices): `drain` waits for it too,
   * so a close right after a request was accepted still writes it.
   */
  submitWhenReady(item: Promise<T>): Promise<R> {
    return this.hold(item.then((ready) => this.submit(ready)));
  }

  /** `drain` also waits for `work` (e.g. a sequence of submissions still to come); returns it. */
  hold<W>(work: Promise<W>): Promise<W> {
    const settled = work.then(
      () => {},
      () => {},
    );
    this.preparing.add(settled);
    void settled.then(() => this.preparing.delete(settled));
    return work;
  }

  /** the weight (`weigh`: rows) submitted and not yet taken into a group, for the metrics */
  get waitingWeight(): number {
    let weight = 0;
    for (const pending of this.pending) weight += this.weigh(pending.item);
    return weight;
  }

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (this.writing && this.isLightItem(item)) this.lightWaits();
      // setImmediate: everything submitted in this turn of the event loop joins the same group.
      if (!this.running) this.running = new Promise((done) => setImmediate(() => this.run().then(done)));
    });
  }

  /** whether these items together are light (a GET's rows, against a bulk) */
  private isLight(items: readonly T[]): boolean {
    return items.reduce((weight, item) => weight + this.weigh(item), 0) <= this.smallWeight;
  }

  private readonly isLightItem = (item: T): boolean => this.weigh(item) <= this.smallWeight;
  private readonly isLightPending = (p: Pending<T, R>): boolean => this.isLightItem(p.item);

  /** Resolves once every item submitted so far has been written (or failed). */
  async drain(): Promise<void> {
    while (this.running || this.alongside || this.preparing.size) {
      await Promise.all(this.preparing);
      if (this.running) await this.running;
      if (this.alongside) await this.alongside;
    }
  }

  private async run(): Promise<void> {
    while (this.pending.length) {
      const group = this.takeGroup();
      this.onTake?.();
      this.writing = true;
      const light = this.isLight(group.map((p) => p.item));
      this.writingHeavy = !light;
      if (this.pending.some(this.isLightPending)) this.lightWaits();
      try {
        await this.writeNext(group, light);
      } finally {
        this.writing = false;
        this.writingHeavy = false;
      }
    }
    this.onTake?.();
    this.running = null;
  }

  /**
   * A light item waits behind the group being written (it arrived during it, or the turn-taking
   * left it behind): the writer is told, and with `lightAlongside` it goes beside a heavy group.
   */
  private lightWaits(): void {
    this.onLightWaiting?.();
    if (this.writingHeavy && this.lightAlongside()) this.writeLightAlongside();
  }

  /**
   * Light items (GET /convert's rows) while a heavy group (a bulk) is being written: in groups of
   * their own beside it, each gathering what arrived in one turn of the event loop, until the
   * heavy group is done; the main loop takes what is left.
   */
  private writeLightAlongside(): void {
    if (this.alongside) return;
    this.alongside = new Promise<void>((done) =>
      setImmediate(async () => {
        while (this.writingHeavy) {
          const light = this.takeLight();
          if (!light.length) break;
          await this.writeNext(light, true);
        }
        this.alongside = null;
        done();
      }),
    );
  }

  /** moves the light items pending, in order, into `group` while it has room and they weigh at most `maxWeight` together */
  private takeLight(group: Pending<T, R>[] = [], maxWeight = this.maxWeight): Pending<T, R>[] {
    const rest: Pending<T, R>[] = [];
    let weight = 0;
    for (const p of this.pending) {
      const w = this.weigh(p.item);
      if (w <= this.smallWeight && group.length < this.maxItems && weight + w <= maxWeight) {
        group.push(p);
        weight += w;
      } else {
        rest.push(p);
      }
    }
    this.pending = rest;
    return group;
  }

  private takeGroup(): Pending<T, R>[] {
    const lightFirst = this.takeLightAhead();
    if (lightFirst.length) return lightFirst;
    // With lightAlongside a group led by a heavy item takes only heavy ones: the light ones queued
    // among them are written beside it (run() sees them waiting) instead of waiting for all its rows.
    const besideIt = this.lightAlongside() && !this.isLightPending(this.pending[0]!);
    const group: Pending<T, R>[] = [];
    const rest: Pending<T, R>[] = [];
    let weight = 0;
    let full = false;
    for (const p of this.pending) {
      const w = this.weigh(p.item);
      const beside = besideIt && w <= this.smallWeight;
      // past the first item that does not fit, none is taken: the group stays in order
      if (!beside) full ||= group.length >= this.maxItems || (group.length > 0 && weight + w > this.maxWeight);
      if (beside || full) {
        rest.push(p);
      } else {
        group.push(p);
        weight += w;
      }
    }
    this.pending = rest;
    // Light submissions that arrived behind it ride along instead of waiting for the next turn
    // of light ones; together at most five light ones' worth, so a group stays near its bound.
    // Not when the writer makes way for them (they go in the next group, after a piece), nor when
    // they are written beside it.
    if (this.pending.length && group.length < this.maxItems && !this.makesWay?.() && !besideIt) this.takeLight(group, 5 * this.smallWeight);
    return group;
  }

  /**
   * Light submissions (a GET /convert's one row) queued behind a heavy one (a bulk) are written
   * first, in a short group of their own, instead of inside the bulk's long transaction: a GET
   * then waits for at most the group already being written. Light-only groups take turns with
   * the others (light-ahead.ts), so a stream of GETs cannot hold a bulk back. A group is light
   * only, or starts with a heavy item: a light one never waits inside a heavy one's transaction
   * that it came before.
   */
  private takeLightAhead(): Pending<T, R>[] {
    this.turns.next(this.pending, this.isLightPending);
    return this.turns.lightWentLast ? this.takeLight() : [];
  }

  private async writeNext(group: Pending<T, R>[], light: boolean): Promise<void> {
    const startedAt = performance.now();
    try {
      const results = await this.writeGroup(group.map((p) => p.item), light);
      if (observers.size) {
        const seconds = (performance.now() - startedAt) / 1000;
        const weight = group.reduce((sum, p, i) => sum + (this.written ? this.written(p.item, results[i]!) : this.weigh(p.item)), 0);
        const report = { items: group.length, weight, seconds };
        for (const observer of observers) observer(report);
      }
      group.forEach((p, i) => p.resolve(results[i]!));
    } catch (error) {
      if (group.length === 1) return group[0]!.reject(error);
      // One bad item must not fail its neighbours: write each alone to find it.
      for (const p of group) await this.writeNext([p], this.isLightItem(p.item));
    }
  }
}
