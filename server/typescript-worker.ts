/**
 * A worker thread running one of the server's TypeScript modules: tsx is registered in the thread
 * before the module loads, as bin/ipatlas.js does for the process. The SQLite writer and reader
 * threads and `serve --threads` start theirs here.
 */
import { Worker, type WorkerOptions } from "node:worker_threads";

export function typescriptWorker(script: URL, options: Omit<WorkerOptions, "eval"> = {}): Worker {
  const bootstrap = `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))})
    .then((tsx) => { tsx.register(); return import(${JSON.stringify(script.href)}); })
    .catch((error) => { console.error(error); process.exit(1); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}
