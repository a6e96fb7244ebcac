/**
 * Lists take turns (docs/storage.md "Lists off the event loop, taking turns"): a filtered count
 * or a page far into a million rows reads up to every row, so at most `concurrency` lists are
 * read at once (SQLite: its one reader thread; PostgreSQL: a share of the pool, so lists never
 * hold every connection the group commits need). The rest wait in a queue per project, and the
 * projects waiting start a list each in turn: one tenant's queue of slow pages does not hold
 * another's list behind all of it.
 */
export class ListTurns {
  private running = 0;
  /** each project's lists not started yet, in arrival order; the Map's order is the projects' turns */
  private readonly waiting = new Map<number, Array<() => void>>();

  constructor(private readonly concurrency: number) {}

  /** lists waiting for their turn (the metrics report it) */
  get queued(): number {
    let count = 0;
    for (const queue of this.waiting.values()) count += queue.length;
    return count;
  }

  run<T>(project: number, read: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        this.running++;
        new Promise<T>((started) => started(read()))
          .then(resolve, reject)
          .finally(() => {
            this.running--;
            this.startNext();
          });
      };
      const queue = this.waiting.get(project);
      if (queue) queue.push(start);
      else if (this.running < this.concurrency) start();
      else this.waiting.set(project, [start]);
    });
  }

  /** the first project in turn starts its oldest list, then goes to the back of the turns */
  private startNext(): void {
    const next = this.waiting.entries().next();
    if (next.done) return;
    const [project, queue] = next.value;
    this.waiting.delete(project);
    const start = queue.shift()!;
    if (queue.length) this.waiting.set(project, queue);
    start();
  }
}
