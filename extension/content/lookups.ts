/**
 * The content script's view of lookups: what this page already knows, and requests to the worker
 * coalesced over a short delay (the visible addresses of a scroll arrive together). The worker
 * does the dedup across tabs, the cache and the back-off.
 */
import type { QuotaInfo } from "../../lib/client/index.js";
import type { IpObject } from "../../lib/schemas/ip-object.js";
import type { LookupResponse } from "../shared/messages.js";
import type { WireError } from "../shared/wire-error.js";

export type Known = { data: IpObject | null } | { error: WireError };

export interface ContentLookupsOptions {
  ask(ips: string[]): Promise<LookupResponse>;
  delayMs?: number;
  /** addresses per message */
  maxPerMessage?: number;
  /** the project's quota, whenever an answer carries it */
  onQuota?(quota: QuotaInfo): void;
}

export interface ContentLookups {
  known(ip: string): Known | undefined;
  /** asks for the addresses not known yet; resolves when they are */
  request(ips: readonly string[]): Promise<void>;
}

export function createContentLookups({ ask, delayMs = 40, maxPerMessage = 1000, onQuota }: ContentLookupsOptions): ContentLookups {
  const results = new Map<string, Known>();
  const inFlight = new Map<string, Promise<void>>();
  let queue: string[] = [];
  let flushing: Promise<void> | null = null;

  async function send(ips: string[]) {
    let response: LookupResponse;
    try {
      response = await ask(ips);
    } catch (error) {
      // The worker was restarting or the extension was reloaded: say so, ask again on next hover.
      const message = String((error as Error)?.message ?? error);
      response = { results: {}, error: { kind: "unreachable", message, status: 0, retryAt: null } };
    }
    if (response.quota) onQuota?.(response.quota);
    for (const ip of ips) {
      if (ip in response.results) results.set(ip, { data: response.results[ip] ?? null });
      else if (response.error) results.set(ip, { error: response.error });
    }
  }

  function flush(): Promise<void> {
    flushing ??= new Promise<void>((resolve) => setTimeout(resolve, delayMs)).then(async () => {
      flushing = null;
      const batch = queue;
      queue = [];
      const sends: Promise<void>[] = [];
      for (let i = 0; i < batch.length; i += maxPerMessage) sends.push(send(batch.slice(i, i + maxPerMessage)));
      await Promise.all(sends);
      for (const ip of batch) inFlight.delete(ip);
    });
    return flushing;
  }

  return {
    known: (ip) => results.get(ip),
    request(ips) {
      const waits: Promise<void>[] = [];
      for (const ip of new Set(ips)) {
        const known = results.get(ip);
        // An error is worth asking about again: the worker answers from its back-off without sending.
        if (known && "data" in known) continue;
        let wait = inFlight.get(ip);
        if (!wait) {
          queue.push(ip);
          wait = flush();
          inFlight.set(ip, wait);
        }
        waits.push(wait);
      }
      return Promise.all(waits).then(() => undefined);
    },
  };
}
