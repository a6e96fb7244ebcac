/**
 * A local stand-in for the data download sites (download.db-ip.com, MaxMind's download endpoint,
 * a mirror): serves the MaxMind test databases gzipped or tarred on the fly, and every way a real
 * download goes wrong (404, truncated, corrupt, slow, wrong content type, wrong month, a file that
 * checks but answers wrong). Tests never reach the internet.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { create as createTar } from "tar";

export const MAXMIND_FIXTURES = resolve(import.meta.dirname, "../fixtures/maxmind");

export function fixture(name: string): Buffer {
  return readFileSync(join(MAXMIND_FIXTURES, name));
}

export function gzipped(name: string | Buffer): Buffer {
  return gzipSync(typeof name === "string" ? fixture(name) : name);
}

/** A tar.gz as MaxMind ships it: `<edition>_<date>/` with the .mmdb and licence files. */
export function tarGz(mmdb: string | Buffer, edition: string, memberName = `${edition}.mmdb`): Buffer {
  const dir = mkdtempSync(join(tmpdir(), "ipatlas-tar-"));
  try {
    const folder = `${edition}_20260204`;
    mkdirSync(join(dir, folder));
    writeFileSync(join(dir, folder, memberName), typeof mmdb === "string" ? fixture(mmdb) : mmdb);
    writeFileSync(join(dir, folder, "COPYRIGHT.txt"), "test data\n");
    createTar({ gzip: true, file: join(dir, "out.tar.gz"), cwd: dir, sync: true }, [folder]);
    return readFileSync(join(dir, "out.tar.gz"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function sha256Hex(body: Buffer): string {
  return createHash("sha256").update(body).digest("hex");
}

/**
 * A City file that passes every structural check but names the wrong countries: the two-letter
 * UTF-8 strings of the probe countries (control byte 0x42, then the letters) rewritten to "XX".
 */
export function wrongAnswers(name: string, codes: string[]): Buffer {
  const buffer = Buffer.from(fixture(name));
  for (const code of codes) {
    const needle = Buffer.from([0x42, ...Buffer.from(code)]);
    for (let at = buffer.indexOf(needle); at >= 0; at = buffer.indexOf(needle, at + 1)) buffer.write("XX", at + 1, "latin1");
  }
  return buffer;
}

export type Route = (req: IncomingMessage, res: ServerResponse) => void;

/** Serves a body as a file, with an ETag; answers 304 to a matching If-None-Match. */
export function file(body: Buffer, contentType = "application/gzip"): Route {
  const etag = `"${sha256Hex(body).slice(0, 16)}"`;
  return (req, res) => {
    if (req.headers["if-none-match"] === etag) {
      res.writeHead(304, { etag }).end();
      return;
    }
    res.writeHead(200, { "content-type": contentType, "content-length": body.length, etag, "last-modified": "Wed, 04 Feb 2026 22:49:29 GMT" }).end(body);
  };
}

/** Announces the whole length, sends half, and hangs up. */
export function truncated(body: Buffer): Route {
  return (_req, res) => {
    res.writeHead(200, { "content-type": "application/gzip", "content-length": body.length });
    res.write(body.subarray(0, body.length >> 1), () => res.socket?.destroy());
  };
}

/** Sends the headers and a first few bytes, then nothing for `stallMs`. */
export function slow(body: Buffer, stallMs: number): Route {
  return (_req, res) => {
    res.writeHead(200, { "content-type": "application/gzip", "content-length": body.length });
    res.write(body.subarray(0, 16));
    const timer = setTimeout(() => res.end(body.subarray(16)), stallMs);
    res.on("close", () => clearTimeout(timer));
  };
}

export interface SourceServer {
  url: string;
  routes: Map<string, Route>;
  /** every request seen: path and headers */
  requests: Array<{ path: string; headers: IncomingMessage["headers"] }>;
  close(): Promise<void>;
}

export async function startSourceServer(): Promise<SourceServer> {
  const routes = new Map<string, Route>();
  const requests: SourceServer["requests"] = [];
  const server: Server = createServer((req, res) => {
    requests.push({ path: req.url!, headers: req.headers });
    const route = routes.get(req.url!);
    if (route) route(req, res);
    else res.writeHead(404, { "content-type": "text/plain" }).end("not found");
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    routes,
    requests,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
