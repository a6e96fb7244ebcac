/**
 * What the abuse suite needs beyond fetch: requests written byte for byte on a socket (so they
 * can be malformed, slow or cut off), the answer parsed back, and how many sockets the server
 * process holds (from /proc, so a leak shows whatever state the sockets are in).
 */
import { connect, type Socket } from "node:net";
import { readdirSync, readlinkSync } from "node:fs";
import { errorEnvelopeSchema } from "../../lib/schemas/envelope.js";

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** everything received */
  text: string;
}

export interface RawOptions {
  port: number;
  /** a second loopback address is a second client (127.0.0.2, ...) */
  localAddress?: string;
  /** give up (and resolve with what came) after this long */
  timeoutMs?: number;
  /** half-close after sending: the server sees the end of what the client will send */
  end?: boolean;
}

export function openSocket(options: RawOptions): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port: options.port, host: "127.0.0.1", localAddress: options.localAddress }, () => resolve(socket));
    socket.once("error", reject);
  });
}

/** Reads until the server closes (or the timeout), then parses the first answer. */
export function readAnswer(socket: Socket, timeoutMs = 10_000): Promise<RawAnswer | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(parseAnswer(Buffer.concat(chunks).toString("latin1")));
    };
    const timer = setTimeout(done, timeoutMs);
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("close", done);
    socket.on("error", () => {});
  });
}

/** Sends `text` on a new socket and reads the answer; the request should say Connection: close. */
export async function rawRequest(options: RawOptions, text: string | Buffer): Promise<RawAnswer | null> {
  const socket = await openSocket(options);
  const answer = readAnswer(socket, options.timeoutMs);
  if (options.end) socket.end(text);
  else socket.write(text);
  return answer;
}

export function parseAnswer(text: string): RawAnswer | null {
  // an interim 100 Continue comes before the answer
  while (/^HTTP\/1\.1 1\d\d /.test(text) && text.includes("\r\n\r\n")) text = text.slice(text.indexOf("\r\n\r\n") + 4);
  const end = text.indexOf("\r\n\r\n");
  if (!text.startsWith("HTTP/1.1 ") || end < 0) return null;
  const [statusLine, ...lines] = text.slice(0, end).split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = text.slice(end + 4);
  if (headers["transfer-encoding"] === "chunked") body = unchunk(body);
  else if (headers["content-length"] !== undefined) body = body.slice(0, Number(headers["content-length"]));
  return { status: Number(statusLine!.split(" ")[1]), headers, body, text };
}

function unchunk(text: string): string {
  let out = "";
  let at = 0;
  for (;;) {
    const lineEnd = text.indexOf("\r\n", at);
    if (lineEnd < 0) return out;
    const size = parseInt(text.slice(at, lineEnd), 16);
    if (!size) return out;
    out += text.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
}

/** Why `answer` is not the envelope with code = status and x-request-id = _req.reqId; null when it is. */
export function envelopeProblem(answer: RawAnswer): string | null {
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    return `not JSON: ${answer.text.slice(0, 200)}`;
  }
  const parsed = errorEnvelopeSchema.safeParse({ ...(body as object), data: null });
  if (!parsed.success) return `not an envelope: ${answer.body.slice(0, 200)}`;
  const envelope = body as { code: number; _req: { reqId: string } };
  if (envelope.code !== answer.status) return `code ${envelope.code} but status ${answer.status}`;
  if (answer.headers["x-request-id"] !== envelope._req.reqId) return "x-request-id differs from _req.reqId";
  return null;
}

/** Sockets the process holds (every state), from /proc/PID/fd. */
export function openSocketCount(pid: number): number {
  let count = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith("socket:")) count++;
    } catch {
      // closed while we looked
    }
  }
  return count;
}

/** Polls until `check` holds or the time is up; returns whether it held. */
export async function eventually(check: () => boolean | Promise<boolean>, withinMs: number, everyMs = 100): Promise<boolean> {
  const until = Date.now() + withinMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Runs `task(i)` for i < count with at most `parallel` at once. */
export async function inParallel(count: number, parallel: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) await task(next++);
    }),
  );
}
