/**
 * Every command of `ipatlas`. A new group is one file beside this one exporting a Command[],
 * one line in `commandGroups`, and its one-line summary in `groupSummaries` (shown by --help).
 */
import type { Command } from "../command.js";
import { serveCommands } from "./serve.js";
import { projectCommands } from "./project.js";
import { keyCommands } from "./key.js";
import { websiteCommands } from "./website.js";
import { usageCommands } from "./usage.js";
import { widgetCommands } from "./widget.js";
import { dataCommands } from "./data.js";
import { lookupCommands } from "./lookup.js";

export const commandGroups: Command[][] = [
  serveCommands,
  projectCommands,
  keyCommands,
  websiteCommands,
  usageCommands,
  widgetCommands,
  dataCommands,
  lookupCommands,
];

/** What each group of commands is about, by its first word(s). */
export const groupSummaries: Record<string, string> = {
  project: "projects and their plans",
  key: "secret and public keys of a project",
  website: "the websites (origins) a project's widget and extension may call from",
  widget: "the embeddable widget",
  data: "the geolocation data: update it now, or see its age",
};
