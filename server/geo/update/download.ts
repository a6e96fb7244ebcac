/**
 * One HTTP download with the limits an unattended job needs: a conditional request (ETag /
 * Last-Modified of the last good download), a size limit (announced or counted), an overall time
 * limit and a stall limit, and a refusal of answers that are pages rather than files (a captive
 * portal or an error page served with 200).
 */
import { ArrivingBytes } from "./arriving-bytes.js";

export interface DownloadOptions {
  authorization?: string;
  etag?: string | null;
  lastModified?: string | null;
  maxBytes: number;
  timeoutMs: number;
  /** no byte for this long aborts the download */
  stallMs: number;
  onProgress?: (received: number, total: number | null) => void;
}

export type DownloadResult =
  | { status: "not-modified" }
  | { status: "not-found" }
  | { status: "ok"; body: Buffer; etag: string | null; lastModified: string | null };

export class DownloadError extends Error {}

/** Content types of a page, not a database file. */
const PAGE_TYPES = /^(text\/|application\/(json|xml|xhtml))/i;

export async function download(url: string, options: DownloadOptions): Promise<DownloadResult> {
  const controller = new AbortController();
  let why = "";
  const abort = (reason: string) => {
    why = reason;
    controller.abort();
  };
  const overall = setTimeout(() => abort(`took longer than ${options.timeoutMs / 1000}s`), options.timeoutMs);
  let stall: NodeJS.Timeout | undefined;
  const armStall = () => {
    clearTimeout(stall);
    stall = setTimeout(() => abort(`no data for ${options.stallMs / 1000}s`), options.stallMs);
  };
  try {
    const headers: Record<string, string> = { "user-agent": "ipatlas-data-update" };
    if (options.authorization) headers.authorization = options.authorization;
    if (options.etag) headers["if-none-match"] = options.etag;
    if (options.lastModified) headers["if-modified-since"] = options.lastModified;
    armStall();
    const response = await fetchOnceMore(url, { headers, signal: controller.signal, redirect: "follow" });
    if (response.status === 304) return { status: "not-modified" };
    if (response.status === 404) {
      await response.body?.cancel();
      return { status: "not-found" };
    }
    if (response.status === 401 || response.status === 403) {
      await response.body?.cancel();
      throw new DownloadError(`HTTP ${response.status}: access refused (check the account id and licence key)`);
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new DownloadError(`HTTP ${response.status}`);
    }
    const type = response.headers.get("content-type") ?? "";
    if (PAGE_TYPES.test(type)) {
      await response.body?.cancel();
      throw new DownloadError(`answered ${type.split(";")[0]}, not a database file`);
    }
    const announced = response.headers.get("content-length");
    const total = announced === null ? null : Number(announced);
    if (total !== null && total > options.maxBytes) {
      await response.body?.cancel();
      throw new DownloadError(`file of ${total} bytes is over the limit of ${options.maxBytes}`);
    }
    const body = new ArrivingBytes(total);
    for await (const chunk of (response.body ?? []) as unknown as AsyncIterable<Uint8Array>) {
      armStall();
      if (body.length + chunk.byteLength > options.maxBytes) throw new DownloadError(`file is over the limit of ${options.maxBytes} bytes`);
      body.push(chunk);
      options.onProgress?.(body.length, total);
    }
    if (total !== null && body.length !== total) throw new DownloadError(`truncated: got ${body.length} of ${total} bytes`);
    return { status: "ok", body: body.bytes(), etag: response.headers.get("etag"), lastModified: response.headers.get("last-modified") };
  } catch (error) {
    if (controller.signal.aborted) throw new DownloadError(`download aborted: ${why}`);
    if (error instanceof DownloadError) throw error;
    const cause = (error as Error & { cause?: Error }).cause;
    throw new DownloadError(`${(error as Error).message}${cause ? `: ${cause.message}` : ""}`);
  } finally {
    clearTimeout(overall);
    clearTimeout(stall);
  }
}

/**
 * A request that fails before any answer (a kept-alive socket the server closed as it was reused:
 * ECONNRESET) is sent once more; an answer, an abort or a second failure is final.
 */
async function fetchOnceMore(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    if (init.signal?.aborted) throw error;
    return fetch(url, init);
  }
}
