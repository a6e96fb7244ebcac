// Preloaded with `node --import` by tests: when the process exits, writes the URL of every module
// its main thread loaded, one a line, to the file named by LOADED_MODULES_FILE.
import { writeFileSync } from "node:fs";
import { registerHooks } from "node:module";
import { isMainThread } from "node:worker_threads";

if (isMainThread) {
  const loaded = [];
  registerHooks({
    load(url, context, nextLoad) {
      loaded.push(url);
      return nextLoad(url, context);
    },
  });
  process.on("exit", () => writeFileSync(process.env.LOADED_MODULES_FILE, loaded.join("\n")));
}
