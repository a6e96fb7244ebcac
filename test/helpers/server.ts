/**
 * Starts the real server (`bin/ipatlas.js serve`) as a child process on a loopback port with its
 * own temporary data dir, and runs the real CLI against the same data dir. Every integration and
 * end-to-end test goes through here, so there is one way to get a server.
 */
import { spawn, execFile, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);
export const ROOT = resolve(import.meta.dirname, "../..");
/** the `ipatlas` command the tests run */
export const BIN = join(ROOT, "bin/ipatlas.js");

export interface TestServer {
  url: string;
  port: number;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  process: ChildProcess;
  /** everything the server printed so far */
  output(): string;
  /** runs `ipatlas <args> --json` on the same data dir / database and parses its one JSON document */
  cli<T = any>(...args: string[]): Promise<T>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface StartOptions {
  env?: Record<string, string | undefined>;
  /** reuse a data dir (e.g. a second server on the same database) */
  dataDir?: string;
  args?: string[];
  timeoutMs?: number;
  /** the Node binary that runs the server (default: the one running the tests) */
  node?: string;
}

/** A fresh, empty data dir in the temp folder (SQLite file, geo index, admin token). */
export function makeDataDir(): string {
  return mkdtempSync(join(tmpdir(), "ipatlas-test-"));
}

export async function runCli<T = any>(dataDir: string, env: NodeJS.ProcessEnv, ...args: string[]): Promise<T> {
  const { stdout } = await execFileAsync(process.execPath, [BIN, ...args, "--json", "--data-dir", dataDir], {
    env,
    cwd: ROOT,
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(stdout) as T;
}

export async function startServer(options: StartOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? makeDataDir();
  const env: NodeJS.ProcessEnv = { ...process.env, IPATLAS_LOG_LEVEL: "warn", ...options.env };
  const child = spawn(
    options.node ?? process.execPath,
    [BIN, "serve", "--port", "0", "--host", "127.0.0.1", "--data-dir", dataDir, ...(options.args ?? [])],
    { env, cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));

  const port = await new Promise<number>((resolvePort, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), options.timeoutMs ?? 30_000);
    const onData = () => {
      // The server prints "IP Atlas listening on http://127.0.0.1:PORT" once it accepts requests.
      const match = /listening on http:\/\/[^:\s]+:(\d+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolvePort(Number(match[1]));
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${out}`));
    });
  });

  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    dataDir,
    env,
    process: child,
    output: () => out,
    cli: (...args) => runCli(dataDir, env, ...args),
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const code = await exited;
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
      return code;
    },
  };
}
