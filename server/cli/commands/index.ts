/** Every command group of `ipatlas`. A new group is one file beside this one and one line here. */
import type { Command } from "../command.js";
import { serveCommands } from "./serve.js";
import { projectCommands } from "./project.js";
import { keyCommands } from "./key.js";
import { websiteCommands } from "./website.js";
import { usageCommands } from "./usage.js";
import { widgetCommands } from "./widget.js";
import { dataCommands } from "./data.js";

export const commandGroups: Command[][] = [
  serveCommands,
  projectCommands,
  keyCommands,
  websiteCommands,
  usageCommands,
  widgetCommands,
  dataCommands,
];
