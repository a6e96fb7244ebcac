/** ipatlas website add | list | remove (docs/api.md#command-line): an origin pattern and its public key. */
import { configuredWidgetSnippet, takesWidget } from "../../widget/snippet.js";
import type { Command } from "../command.js";

export const websiteCommands: Command[] = [
  {
    words: ["website", "add"],
    usage: "--project ID --origin PATTERN",
    summary: "allow an origin (example.com, *.example.com, localhost:5173, https://host:port, chrome-extension://ID) and create its public key",
    options: {
      project: { type: "string", required: true, valueName: "ID", description: "the project's id" },
      origin: { type: "string", required: true, valueName: "PATTERN", description: "an origin pattern, e.g. *.example.com" },
    },
    async run(ctx) {
      const result = await (await ctx.services()).addWebsite({ projectId: ctx.options.project, origin: ctx.options.origin });
      // The ready-to-paste widget embed; null while the widget is not built, and for extensions.
      const snippet = configuredWidgetSnippet(ctx.config, result.website.origin, result.publicKey);
      const extension = !takesWidget(result.website.origin);
      return {
        json: { website: result.website, publicKey: result.publicKey, snippet },
        text:
          `Added website ${result.website.origin} (${result.website.id}).\nPublic key: ${result.publicKey}` +
          (snippet ? `\n\nWidget snippet for that site:\n${snippet}` : "") +
          (extension ? "\n\nSet this key in the extension's options; extensions call the API directly and take no widget snippet." : ""),
      };
    },
  },
  {
    words: ["website", "list"],
    usage: "--project ID",
    summary: "list a project's websites",
    options: { project: { type: "string", required: true, valueName: "ID", description: "the project's id" } },
    async run(ctx) {
      const websites = await (await ctx.services()).listWebsites(ctx.options.project);
      return {
        json: { websites },
        text: websites.length ? websites.map((w) => `${w.id}  ${w.origin}  ${w.keyPrefix ?? "(no key)"}`).join("\n") : "No websites.",
      };
    },
  },
  {
    words: ["website", "remove"],
    usage: "<websiteId>",
    summary: "remove a website; its public key stops working",
    positionals: ["websiteId"],
    async run(ctx) {
      const result = await (await ctx.services()).removeWebsite(ctx.args.websiteId);
      return { json: result, text: `Removed website ${result.website.origin} (${result.website.id}).` };
    },
  },
];
