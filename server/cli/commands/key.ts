/** ipatlas key create | list | roll | revoke (docs/api.md#command-line). */
import type { Command } from "../command.js";

export const keyCommands: Command[] = [
  {
    words: ["key", "create"],
    usage: "--project ID --name N",
    summary: "create a secret key",
    options: {
      project: { type: "string", required: true, valueName: "ID", description: "the project's id" },
      name: { type: "string", required: true, valueName: "N", description: "the key's name" },
    },
    async run(ctx) {
      const result = await (await ctx.services()).createKey({ projectId: ctx.options.project, name: ctx.options.name });
      return {
        json: { key: result.key, secretKey: result.secretKey },
        text: `Created key ${result.key.name} (${result.key.id}).\nSecret key (shown once, store it now): ${result.secretKey}`,
      };
    },
  },
  {
    words: ["key", "list"],
    usage: "--project ID",
    summary: "list a project's keys (values are never shown again)",
    options: { project: { type: "string", required: true, valueName: "ID", description: "the project's id" } },
    async run(ctx) {
      const keys = await (await ctx.services()).listKeys(ctx.options.project);
      return {
        json: { keys },
        text: keys.length
          ? keys
              .map((k) => `${k.id}  ${k.kind}  ${k.prefix}…  ${k.name}  last used ${k.lastUsedAt ?? "never"}${k.revokedAt ? "  REVOKED" : ""}`)
              .join("\n")
          : "No keys.",
      };
    },
  },
  {
    words: ["key", "roll"],
    usage: "<keyId>",
    summary: "replace a key's value; the old value stops working at once",
    positionals: ["keyId"],
    async run(ctx) {
      const result = await (await ctx.services()).rollKey(ctx.args.keyId);
      const value = "secretKey" in result ? result.secretKey : result.publicKey;
      return { json: result, text: `Rolled key ${result.key.name} (${result.key.id}).\nNew value (shown once): ${value}` };
    },
  },
  {
    words: ["key", "revoke"],
    usage: "<keyId>",
    summary: "revoke a key for good",
    positionals: ["keyId"],
    async run(ctx) {
      const result = await (await ctx.services()).revokeKey(ctx.args.keyId);
      return { json: result, text: `Revoked key ${result.key.name} (${result.key.id}).` };
    },
  },
];
