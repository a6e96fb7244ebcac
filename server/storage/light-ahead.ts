/**
 * Who writes next when light writers (a GET /convert's row) wait beside heavy ones (bulks): the
 * first light one goes ahead of heavier ones that came before it, but right after a light one
 * went, the oldest goes, light or not, so a stream of GETs cannot hold a bulk back. One policy for
 * both places that order writes: the group-commit queue within a process (group-commit.ts), and
 * the primary's write turn between `--workers` on SQLite (`WriteTurns` in server-group.ts).
 */
export class LightAhead {
  private lightWent = false;

  /** the last turn (`next`) went to a light writer */
  get lightWentLast(): boolean {
    return this.lightWent;
  }

  /** The index in `waiting` (oldest first, not empty) of the writer whose turn it is; records that it went. */
  next<W>(waiting: readonly W[], isLight: (writer: W) => boolean): number {
    const light = this.lightWent ? -1 : waiting.findIndex(isLight);
    const index = light === -1 ? 0 : light;
    this.lightWent = isLight(waiting[index]!);
    return index;
  }
}
