/** ipatlas project create | list | plan (docs/api.md#command-line). */
import type { Command } from "../command.js";

const limitText = (limit: number | null) => (limit === null ? "unlimited" : String(limit));

export const projectCommands: Command[] = [
  {
    words: ["project", "create"],
    usage: "--name N [--plan free|starter|growth|scale]",
    summary: "create a project and its first secret key (named default)",
    options: {
      name: { type: "string", required: true, valueName: "N", description: "the project's name" },
      plan: { type: "string", valueName: "PLAN", description: "free (default), starter, growth or scale" },
    },
    async run(ctx) {
      const created = await (await ctx.services()).createProject({ name: ctx.options.name, plan: ctx.options.plan });
      return {
        json: { project: created.project, secretKey: created.secretKey },
        text: [
          `Created project ${created.project.name} (${created.project.id}), plan ${created.project.plan}.`,
          `Secret key (shown once, store it now): ${created.secretKey}`,
        ].join("\n"),
      };
    },
  },
  {
    words: ["project", "list"],
    usage: "",
    summary: "list projects with this month's usage",
    async run(ctx) {
      const projects = await (await ctx.services()).listProjects();
      return {
        json: { projects },
        text: projects.length
          ? projects.map((p) => `${p.id}  ${p.name}  ${p.plan}  ${p.used}/${limitText(p.limit)}`).join("\n")
          : "No projects.",
      };
    },
  },
  {
    words: ["project", "plan"],
    usage: "<projectId> <free|starter|growth|scale>",
    summary: "change a project's plan (takes effect on the next request)",
    positionals: ["projectId", "plan"],
    async run(ctx) {
      const result = await (await ctx.services()).setPlan(ctx.args.projectId, ctx.args.plan);
      return { json: result, text: `Project ${result.project.name} is now on plan ${result.project.plan}.` };
    },
  },
];
