/**
 * The address a server can be reached at, recorded in its data dir when it starts listening, so
 * that the CLI and the dashboard print snippets and links that point at the running server (not
 * at the default port) wherever they run. IPATLAS_PUBLIC_URL always wins.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { publicBaseUrl, type Config } from "./config.js";

export const SERVER_URL_FILE = "server-url.json";

interface RecordedUrl {
  url: string;
  /** when the server that wrote it started listening */
  at: string;
}

/** Called once the server listens; a failure to write only costs the CLI its hint. */
export function recordServerUrl(dataDir: string, url: string): void {
  try {
    mkdirSync(dataDir, { recursive: true });
    const path = join(dataDir, SERVER_URL_FILE);
    // written aside and renamed, so a reader never sees half a file
    writeFileSync(`${path}.${process.pid}`, JSON.stringify({ url, at: new Date().toISOString() } satisfies RecordedUrl) + "\n");
    renameSync(`${path}.${process.pid}`, path);
  } catch {
    // read-only data dir: snippets fall back to the configured host and port
  }
}

export function readServerUrl(dataDir: string): string | null {
  try {
    const recorded = JSON.parse(readFileSync(join(dataDir, SERVER_URL_FILE), "utf8")) as Partial<RecordedUrl>;
    return typeof recorded.url === "string" && /^https?:\/\/[^/]+/.test(recorded.url) ? recorded.url.replace(/\/+$/, "") : null;
  } catch {
    return null;
  }
}

/**
 * Where snippets and links point: IPATLAS_PUBLIC_URL, else the address the server on this data
 * dir last recorded, else what the configuration says (host and port).
 */
export function serverBaseUrl(config: Config): string {
  return config.publicUrl ?? readServerUrl(config.dataDir) ?? publicBaseUrl(config, config.port);
}
