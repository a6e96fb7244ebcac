/**
 * The progress line of `ipatlas convert` on a terminal (cli-progress): share of the input read,
 * addresses done, rate and ETA. Not drawn when stderr is not a terminal, so piped and logged
 * runs stay clean. cli-progress is loaded only then, not at every start of every command.
 */
import type { Writable } from "node:stream";

export interface Progress {
  /** bytes of input read so far, addresses written so far */
  update(bytes: number, addresses: number): void;
  stop(): void;
}

const rateText = (perSecond: number) =>
  perSecond >= 10_000 ? `${Math.round(perSecond / 1000)}k` : String(Math.round(perSecond));

function durationText(seconds: number): string {
  const s = Math.round(seconds);
  return s < 60 ? `${s}s` : s < 3600 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s` : `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

/** `totalBytes` null (stdin): no bar and no ETA, only the count and the rate. */
export async function terminalProgress(stream: Writable, totalBytes: number | null): Promise<Progress> {
  const { default: cliProgress } = await import("cli-progress");
  const started = performance.now();
  const bar = new cliProgress.SingleBar(
    {
      stream: stream as NodeJS.WriteStream,
      format:
        totalBytes === null
          ? "{addresses} addresses | {rate}/s | {duration_formatted}"
          : "{bar} {percentage}% | {addresses} addresses | {rate}/s | ETA {remaining}",
      hideCursor: true,
      clearOnComplete: false,
      fps: 5,
      etaBuffer: 20,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(totalBytes ?? 0, 0, { addresses: 0, rate: "0", remaining: "…" });
  return {
    update(bytes, addresses) {
      const seconds = (performance.now() - started) / 1000;
      const done = totalBytes === null ? 0 : Math.min(bytes, totalBytes);
      // from the average byte rate so far: steadier than cli-progress's window over few updates
      const eta = done > 0 && totalBytes !== null ? durationText(((totalBytes - done) * seconds) / done) : "…";
      bar.update(done, { addresses, rate: rateText(seconds > 0 ? addresses / seconds : 0), remaining: eta });
    },
    stop() {
      bar.stop();
    },
  };
}
