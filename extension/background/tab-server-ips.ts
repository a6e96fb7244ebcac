/**
 * The address each tab's page came from. Chrome (and Firefox) report it in webRequest
 * `onResponseStarted` as `details.ip`; it is kept in session storage, so a restarted service worker
 * still knows. A page from the back/forward cache or the HTTP cache brings no ip: then the address
 * last seen for the same host name in this session answers, and after that Firefox's
 * `dns.resolve`.
 */
import type { StorageAreaLike } from "../shared/storage-area.js";

export interface TabServer {
  url: string;
  ip: string;
}

export interface ResponseStartedDetails {
  tabId: number;
  url: string;
  ip?: string;
  type: string;
}

export type ResolveHost = (host: string) => Promise<string | null>;

const key = (tabId: number) => `tab:${tabId}`;
const hostKey = (host: string) => `host:${host}`;

export interface TabServerIps {
  /** webRequest.onResponseStarted listener (main frames only) */
  onResponseStarted(details: ResponseStartedDetails): void;
  onTabRemoved(tabId: number): void;
  /** the ip the tab's current page came from, with how it was learnt */
  lookup(tabId: number, url: string): Promise<{ ip: string | null; source: "webRequest" | "dns" | null }>;
}

export function createTabServerIps(session: StorageAreaLike, resolveHost: ResolveHost | null): TabServerIps {
  return {
    onResponseStarted(details) {
      if (details.type !== "main_frame" || details.tabId < 0 || !details.ip) return;
      let host = "";
      try {
        host = new URL(details.url).hostname;
      } catch {
        return;
      }
      void session.set({
        [key(details.tabId)]: { url: details.url, ip: details.ip } satisfies TabServer,
        [hostKey(host)]: details.ip,
      });
    },
    onTabRemoved(tabId) {
      void session.remove(key(tabId));
    },
    async lookup(tabId, url) {
      const seen = (await session.get(key(tabId)))[key(tabId)] as TabServer | undefined;
      let host: string;
      try {
        host = new URL(url).hostname;
      } catch {
        return { ip: null, source: null };
      }
      // Same host is enough: in-page navigations (history API) do not start a new main-frame response.
      if (seen && sameHost(seen.url, host)) return { ip: seen.ip, source: "webRequest" };
      const before = (await session.get(hostKey(host)))[hostKey(host)];
      if (typeof before === "string") return { ip: before, source: "webRequest" };
      if (resolveHost && /^https?:$/.test(new URL(url).protocol)) {
        const ip = await resolveHost(host).catch(() => null);
        if (ip) return { ip, source: "dns" };
      }
      return { ip: null, source: null };
    },
  };
}

function sameHost(url: string, host: string): boolean {
  try {
    return new URL(url).hostname === host;
  } catch {
    return false;
  }
}
