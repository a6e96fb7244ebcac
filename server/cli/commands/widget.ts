/**
 * ipatlas widget snippet --project ID [--website ID] [--key ipa_pk_… | --roll]: the ready-to-paste
 * embed code, pinned to the current build with its SRI hash, pointing at the server that owns
 * the data dir. Keys are stored only as hashes, so the snippet carries a key only when given, or
 * with --roll, which makes the website a new public key (the old one stops working).
 */
import { KEY_PLACEHOLDER, takesWidget, widgetScriptUrl, widgetSnippet } from "../../widget/snippet.js";
import { readWidgetManifest } from "../../widget/manifest.js";
import { serverBaseUrl } from "../../public-url.js";
import { UsageError, type Command } from "../command.js";

export const widgetCommands: Command[] = [
  {
    words: ["widget", "snippet"],
    usage: "--project ID [--website ID] [--key PUBLIC_KEY | --roll]",
    summary: "print the embed code for a project's website (--roll: with a new public key for it)",
    options: {
      project: { type: "string", required: true, valueName: "ID", description: "the project's id" },
      website: { type: "string", valueName: "ID", description: "only this website's origin" },
      key: { type: "string", valueName: "PUBLIC_KEY", description: "put this public key (ipa_pk_…) into the snippet" },
      roll: { type: "boolean", description: "roll the website's public key and put the new one into the snippet" },
    },
    async run(ctx) {
      let key = ctx.options.key;
      if (key !== undefined && (typeof key !== "string" || !/^ipa_pk_[A-Za-z0-9_-]+$/.test(key))) {
        throw new UsageError("--key must be a public key (ipa_pk_…); secret keys must never go into a web page");
      }
      const roll = ctx.options.roll === true;
      if (roll && key) throw new UsageError("--roll makes a new key: give either --key or --roll");
      if (roll && ctx.options.website === undefined) throw new UsageError("--roll needs --website ID: the website whose key to replace");
      const services = await ctx.services();
      const websites = await services.listWebsites(ctx.options.project);
      const website = ctx.options.website === undefined ? null : websites.find((w) => w.id === ctx.options.website);
      if (website === undefined) throw new UsageError(`Website not found in this project: ${ctx.options.website}`);
      if (website && !takesWidget(website.origin)) {
        throw new UsageError(`${website.origin} is a browser extension: it calls the API directly and takes no widget (docs/extension.md)`);
      }

      const manifest = readWidgetManifest();
      if (!manifest) throw new Error("The widget is not built: run npm run build:widget");
      if (roll && website) {
        const keyId = (await services.listKeys(ctx.options.project)).find((k) => k.websiteId === website.id && !k.revokedAt)?.id;
        if (!keyId) throw new UsageError(`${website.origin} has no live public key to roll`);
        key = (await services.rollKey(keyId)).publicKey;
      }
      const baseUrl = serverBaseUrl(ctx.config);
      const snippet = widgetSnippet({ baseUrl, publicKey: key, manifest });
      const hint = key
        ? roll
          ? "The website's previous public key stopped working: replace it wherever it was embedded.\n"
          : ""
        : `Replace ${KEY_PLACEHOLDER} with the website's public key` +
          (website?.keyPrefix ? ` (it starts with ${website.keyPrefix}; a page that embeds it shows it in data-key)` : "") +
          ", or run again with --website ID --roll to get a new one in the snippet.\n";
      const origins = (website ? [website] : websites).filter((w) => takesWidget(w.origin)).map((w) => w.origin);
      return {
        json: {
          snippet,
          scriptUrl: widgetScriptUrl(baseUrl, manifest),
          integrity: manifest.integrity,
          website: website ?? null,
          ...(roll && { publicKey: key }),
        },
        text:
          `${snippet}\n\n${hint}` +
          (origins.length ? `Works on: ${origins.join(", ")}\n` : "No website yet: add one with `ipatlas website add --project ID --origin PATTERN`.\n"),
      };
    },
  },
];
