/** ipatlas usage (docs/api.md#command-line): this month's conversions against the plan. */
import type { Command } from "../command.js";

export const usageCommands: Command[] = [
  {
    words: ["usage"],
    usage: "--project ID",
    summary: "conversions used this month (UTC) and the plan's limit",
    options: { project: { type: "string", required: true, valueName: "ID", description: "the project's id" } },
    async run(ctx) {
      const usage = await (await ctx.services()).usage(ctx.options.project);
      return {
        json: usage,
        text: `${usage.used} of ${usage.limit ?? "unlimited"} conversions used on plan ${usage.plan}, ${usage.periodStart} to ${usage.periodEnd}.`,
      };
    },
  },
];
