/**
 * GET /convert for the widgets of one page: one request per (key, address), shared by every
 * widget that asks, answered from sessionStorage when the visitor was looked up recently. At
 * most one request is in flight per page: widgets with different addresses take turns.
 */
import { DATA_SOURCES_HEADER, parseDataSources } from "../../lib/schemas/data-sources.js";
import type { LookupCache } from "./cache.js";
import { clientError, toResult, type LookupResult } from "./result.js";

export interface LookupOptions {
  /** the IP Atlas server, e.g. `https://geo.example.com/` */
  baseUrl: string;
  cache: LookupCache;
  fetch?: typeof fetch;
}

export const NETWORK_ERROR = "The IP Atlas server could not be reached, or it refused this page's origin";

export type Lookup = (key: string, ip: string) => Promise<LookupResult>;

/** Answers worth remembering across pages: a success, or an error that asking again will not fix. */
function isLasting(result: LookupResult): boolean {
  return result.ok || (result.error.code >= 400 && result.error.code < 500);
}

export function createLookup({ baseUrl, cache, fetch: fetchFn = fetch }: LookupOptions): Lookup {
  // Per page: every lookup asked, pending or answered, so a second widget (or a re-render) sends
  // nothing new. Failures stay too: a page never retries on its own; the next page may.
  const pending = new Map<string, Promise<LookupResult>>();
  // the tail of the page's requests: each starts when the one before it has settled (request never rejects)
  let previous: Promise<unknown> = Promise.resolve();
  const inTurn = (key: string, ip: string): Promise<LookupResult> => {
    const next = previous.then(() => request(key, ip));
    previous = next;
    return next;
  };

  async function request(key: string, ip: string): Promise<LookupResult> {
    const url = new URL("convert", baseUrl);
    if (ip) url.searchParams.set("ip", ip);
    let result: LookupResult;
    try {
      // The page's Origin goes along by itself (mode cors); no cookies are needed or sent.
      const response = await fetchFn(url, { headers: { "x-api-key": key }, credentials: "omit", mode: "cors" });
      let body: unknown = null;
      try {
        body = await response.json();
      } catch {
        body = null;
      }
      result = toResult(response.status, body, parseDataSources(response.headers.get(DATA_SOURCES_HEADER)));
    } catch {
      // Also what a refused origin looks like: the 401 carries no CORS header, so it is unreadable.
      result = { ok: false, error: clientError(NETWORK_ERROR) };
    }
    if (isLasting(result)) cache.set(key, ip, result);
    return result;
  }

  return (key, ip) => {
    const id = `${key}\n${ip}`;
    let promise = pending.get(id);
    if (!promise) {
      const cached = cache.get(key, ip);
      promise = cached ? Promise.resolve(cached) : inTurn(key, ip);
      pending.set(id, promise);
    }
    return promise;
  };
}
