/** ipatlas data update | status (docs/data.md "Updates"). */
import type { SingleBar } from "cli-progress";
import { UsageError, type Command, type CommandContext } from "../command.js";
import { loadUpdateSettings, UpdateSettingsError, type UpdateSettings } from "../../geo/update/settings.js";
import type { UpdateReport } from "../../geo/update/updater.js";
import type { DataStatus } from "../../geo/update/status.js";
import type { UpdateState } from "../../geo/update/state.js";

/** --source and --mirror stand in for IPATLAS_UPDATE_SOURCE and IPATLAS_UPDATE_MIRROR. */
function settingsOf(ctx: CommandContext): UpdateSettings {
  const env = { ...ctx.env };
  if (typeof ctx.options.source === "string") env.IPATLAS_UPDATE_SOURCE = ctx.options.source;
  if (typeof ctx.options.mirror === "string") env.IPATLAS_UPDATE_MIRROR = ctx.options.mirror;
  try {
    return loadUpdateSettings(env);
  } catch (error) {
    if (error instanceof UpdateSettingsError) throw new UsageError(error.message.replace(/IPATLAS_UPDATE_SOURCE(?= must)/, "--source"));
    throw error;
  }
}

/**
 * A bar per download on a terminal; nothing when stderr is piped or the output is JSON.
 * cli-progress is loaded only then, not at every start of every command.
 */
async function progressBar(ctx: CommandContext) {
  if (ctx.json || !process.stderr.isTTY) return { onProgress: undefined, stop() {} };
  const { SingleBar, Presets } = await import("cli-progress");
  let bar: SingleBar | null = null;
  let current = "";
  return {
    onProgress(role: string, received: number, total: number | null) {
      if (role !== current) {
        bar?.stop();
        current = role;
        bar = new SingleBar({ format: `${role.padEnd(4)} [{bar}] {percentage}% | {value}/{total} MB`, hideCursor: true }, Presets.shades_classic);
        bar.start(total ? Math.ceil(total / 1e6) : 0, 0);
      }
      if (total) bar!.setTotal(Math.ceil(total / 1e6));
      bar!.update(Math.floor(received / 1e6));
    },
    stop() {
      bar?.stop();
    },
  };
}

function reportText(report: UpdateReport): string {
  if (report.status === "busy") return "Another update of this data dir is running; nothing done.";
  return report.databases
    .map((db) => {
      if (db.status === "updated") return `${db.name}: updated from ${db.url}\n  built ${db.buildDate}, ${(db.bytes! / 1e6).toFixed(1)} MB, in ${db.file}`;
      if (db.status === "unchanged") return `${db.name}: unchanged (built ${db.buildDate ?? "?"}) ${db.url ?? ""}`.trimEnd();
      return `${db.name}: FAILED: ${db.error}\n  kept ${db.buildDate ? `the data built ${db.buildDate}` : "the data in use"}`;
    })
    .join("\n");
}

function statusText(status: DataStatus, checks: UpdateState["databases"]): string {
  const lines = status.databases.map(
    (db) =>
      `${db.name.padEnd(19)} ${db.kind.padEnd(8)} built ${db.buildDate?.slice(0, 10) ?? "?         "}  ${db.ageDays === null ? "?" : `${db.ageDays} days`}${db.stale ? "  STALE" : ""}\n  ${db.source}`,
  );
  const { update } = status;
  const every = update.everySeconds === null ? "off" : `every ${update.everySeconds / 3600} h`;
  lines.push(
    "",
    `stale after ${status.maxAgeDays} days: ${status.stale ? "yes, run `ipatlas data update`" : "no"}`,
    `updates from ${update.source}, serve schedule ${every}; last check ${update.lastCheckAt ?? "never"}${update.lastCheckOk === false ? " (failed)" : ""}`,
  );
  for (const [name, check] of Object.entries(checks)) {
    if (check?.lastError) lines.push(`  ${name}: last check failed: ${check.lastError}`);
    else if (check?.updatedAt) lines.push(`  ${name}: updated ${check.updatedAt} from ${check.url}`);
  }
  return lines.join("\n");
}

export const dataCommands: Command[] = [
  {
    words: ["data", "update"],
    usage: "[--source dbip|maxmind] [--mirror URL]",
    summary: "download new geolocation data now; a running server picks it up without a restart (exit 1 if a database failed)",
    options: { source: { type: "string" }, mirror: { type: "string" } },
    async run(ctx) {
      const settings = settingsOf(ctx);
      const { updateData } = await import("../../geo/update/updater.js");
      const progress = await progressBar(ctx);
      const quiet = () => {};
      let report: UpdateReport;
      try {
        report = await updateData({
          dataDir: ctx.config.dataDir,
          cityDb: ctx.config.cityDb,
          asnDb: ctx.config.asnDb,
          settings,
          onProgress: progress.onProgress,
          // the report below says it all; errors that escape the updater still reach main.ts
          log: { info: quiet, warn: quiet, error: quiet },
        });
      } finally {
        progress.stop();
      }
      ctx.stdout(ctx.json ? JSON.stringify(report) : reportText(report));
      return report.databases.some((db) => db.status === "failed") || report.status === "busy" ? 1 : 0;
    },
  },
  {
    words: ["data", "status"],
    usage: "",
    summary: "show each geolocation database's source, build date, age and whether it is stale",
    async run(ctx) {
      const [{ createGeoEngine }, { dataStatus }, { readState }] = await Promise.all([
        import("../../geo/engine/engine.js"),
        import("../../geo/update/status.js"),
        import("../../geo/update/state.js"),
      ]);
      const quiet = () => {};
      const engine = await createGeoEngine({
        cityDb: ctx.config.cityDb,
        asnDb: ctx.config.asnDb,
        dataDir: ctx.config.dataDir,
        publicBaseUrl: () => "",
        logger: { info: quiet, warn: quiet, error: (line) => ctx.stderr(line) },
      });
      try {
        const status = dataStatus(engine.databases(), ctx.config.update, ctx.config.dataDir);
        // what /healthz keeps private: each database's last check, URL and error
        const checks = readState(ctx.config.dataDir).databases;
        return { json: { ...status, checks }, text: statusText(status, checks) };
      } finally {
        await engine.close();
      }
    },
  },
];
