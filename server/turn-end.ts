/**
 * The end of this turn of the event loop (Node's check phase, `setImmediate`): one promise for
 * every caller of the turn. An answer made at once waits for it, so that the answers of a turn
 * are written together, as a group commit's answers are (storage/group-commit.ts): the turn
 * reads all its requests before any answer leaves. With the client on the same cores, answers
 * written one by one, while the turn still read requests, cost the server a third more CPU a
 * request (docs/performance.md "2026-12-01, early morning").
 */
let ending: Promise<void> | null = null;

export function turnEnd(): Promise<void> {
  return (ending ??= new Promise<void>((resolve) =>
    setImmediate(() => {
      ending = null;
      resolve();
    }),
  ));
}
