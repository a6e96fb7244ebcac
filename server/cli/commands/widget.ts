/**
 * ipatlas widget snippet --project ID [--website ID] [--key ipa_pk_…]: the ready-to-paste embed
 * code, pinned to the current build with its SRI hash. Keys are stored only as hashes, so the
 * snippet carries the key only when given; otherwise a placeholder to replace.
 */
import { publicBaseUrl } from "../../config.js";
import { KEY_PLACEHOLDER, widgetScriptUrl, widgetSnippet } from "../../widget/snippet.js";
import { readWidgetManifest } from "../../widget/manifest.js";
import { UsageError, type Command } from "../command.js";

export const widgetCommands: Command[] = [
  {
    words: ["widget", "snippet"],
    usage: "--project ID [--website ID] [--key PUBLIC_KEY]",
    summary: "print the embed code for a project's website: the versioned widget script with its SRI hash",
    options: {
      project: { type: "string", required: true, valueName: "ID", description: "the project's id" },
      website: { type: "string", valueName: "ID", description: "only this website's origin" },
      key: { type: "string", valueName: "PUBLIC_KEY", description: "put this public key (ipa_pk_…) into the snippet" },
    },
    async run(ctx) {
      const key = ctx.options.key;
      if (key !== undefined && (typeof key !== "string" || !/^ipa_pk_[A-Za-z0-9_-]+$/.test(key))) {
        throw new UsageError("--key must be a public key (ipa_pk_…); secret keys must never go into a web page");
      }
      const websites = await (await ctx.services()).listWebsites(ctx.options.project);
      const website = ctx.options.website === undefined ? null : websites.find((w) => w.id === ctx.options.website);
      if (website === undefined) throw new UsageError(`Website not found in this project: ${ctx.options.website}`);

      const manifest = readWidgetManifest();
      if (!manifest) throw new Error("The widget is not built: run npm run build:widget");
      const baseUrl = publicBaseUrl(ctx.config, ctx.config.port);
      const snippet = widgetSnippet({ baseUrl, publicKey: key, manifest });
      const hint = key
        ? ""
        : `Replace ${KEY_PLACEHOLDER} with the public key printed by \`ipatlas website add\`` +
          (website?.keyPrefix ? ` (it starts with ${website.keyPrefix})` : "") +
          "; `ipatlas key roll <keyId>` makes a new one.\n";
      const origins = (website ? [website] : websites).map((w) => w.origin);
      return {
        json: { snippet, scriptUrl: widgetScriptUrl(baseUrl, manifest), integrity: manifest.integrity, website: website ?? null },
        text:
          `${snippet}\n\n${hint}` +
          (origins.length ? `Works on: ${origins.join(", ")}\n` : "No website yet: add one with `ipatlas website add --project ID --origin PATTERN`.\n"),
      };
    },
  },
];
