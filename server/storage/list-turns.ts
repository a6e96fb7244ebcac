/**
 * Lists take turns (docs/storage.md "Lists off the event loop, taking turns"): a filtered count
 * or a page far into a million rows reads up to every row, so at most `concurrency` lists are
 * read at once (SQLite: its one reader thread; PostgreSQL: a share of the pool, so lists never
 * hold every connection the group commits need). The rest wait in a queue per project, and the
 * projects waiting start a list each in turn: one tenant's queue of slow pages does not hold
 * another's list behind all of it.
 */
import { RoundRobin } from "../round-robin.js";

export class ListTurns {
  private running = 0;
  /** each project's lists not started yet, started round-robin between projects */
  private readonly waiting = new RoundRobin<number, () => void>();

  constructor(private readonly concurrency: number) {}

  /** lists waiting for their turn (the metrics report it) */
  get queued(): number {
    return this.waiting.size;
  }

  run<T>(project: number, read: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        this.running++;
        new Promise<T>((started) => started(read()))
          .then(resolve, reject)
          .finally(() => {
            this.running--;
            this.waiting.shift()?.();
          });
      };
      // a project with lists waiting waits behind them, so its lists keep their order
      if (this.waiting.countOf(project) === 0 && this.running < this.concurrency) start();
      else this.waiting.push(project, start);
    });
  }
}
