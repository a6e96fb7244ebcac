/**
 * The background worker: the only place that talks to the IP Atlas server. Content scripts and
 * the popup ask it by message; it answers from the cache, batches and dedups what is left, and
 * backs off after failures. A change of server or key empties the cache (other server, other answers).
 */
import type { WxtBrowser as Browser } from "wxt/browser";
import { createClient, isApiError, type IpAtlasClient, type QuotaInfo } from "../../lib/client/index.js";
import { isPublicAddress, parseIp } from "../../lib/ip/index.js";
import type { IpObject } from "../../lib/schemas/ip-object.js";
import type { LookupResponse, OwnIpResponse, TabServerResponse, WorkerRequest } from "../shared/messages.js";
import { isWorkerRequest } from "../shared/messages.js";
import { DEFAULT_SETTINGS, isConfigured, loadSettings, SETTINGS_KEY, type Settings } from "../shared/settings.js";
import type { StorageAreaLike } from "../shared/storage-area.js";
import { NOT_CONFIGURED, toWireError, type WireError } from "../shared/wire-error.js";
import { QUOTA_KEY } from "../shared/quota.js";
import { syncOriginRule, type SessionRulesApi } from "../shared/origin-header.js";
import { createBackoff } from "./backoff.js";
import { createLookupBatcher } from "./batcher.js";
import { createTabServerIps, type ResolveHost } from "./tab-server-ips.js";
import { createTtlCache } from "./ttl-cache.js";
import { installLookupMenu } from "./lookup-menu.js";
import { flagDrawer } from "./offscreen-flags.js";
import { createSiteFlag, type ActionApi } from "./site-flag.js";

const PRUNE_EVERY_MS = 60 * 60_000;
/** Your own address is asked again after this long (it changes with networks and VPNs). */
const OWN_IP_TTL_MS = 10 * 60_000;
const OWN_IP_KEY = "own-ip";

/** Canonical public addresses only: private and reserved ones are never sent, garbage is dropped. */
function publicIps(ips: unknown): string[] {
  if (!Array.isArray(ips)) return [];
  const out: string[] = [];
  for (const text of ips) {
    const parsed = typeof text === "string" ? parseIp(text) : null;
    if (parsed && isPublicAddress(parsed.lookup)) out.push(parsed.ip);
  }
  return out;
}

/**
 * Registers every listener synchronously (an MV3 worker woken by an event must have its listener
 * in place in the first turn); settings load meanwhile and handlers wait for them.
 */
export function startWorker(browser: Browser, resolveHost: ResolveHost | null) {
  const local = browser.storage.local as unknown as StorageAreaLike;
  const session = (browser.storage.session ?? browser.storage.local) as unknown as StorageAreaLike;
  let settings: Settings = DEFAULT_SETTINGS;
  // chrome-extension://<id> or moz-extension://<uuid>: the worker runs at its extension's origin.
  const extensionOrigin = globalThis.location.origin;
  const rules = (browser as unknown as { declarativeNetRequest?: SessionRulesApi }).declarativeNetRequest;
  /** settles when the latest settings are in force; requests wait for it */
  let ready = loadSettings(local).then(async (loaded) => {
    settings = loaded;
    await syncOriginRule(rules, settings.serverUrl, extensionOrigin);
  });
  let client: IpAtlasClient | null = null;
  const backoff = createBackoff();
  const cache = createTtlCache({ area: local, ttlMs: () => settings.cacheTtlMinutes * 60_000 });
  const tabs = createTabServerIps(session, resolveHost);
  let quota: QuotaInfo | null = null;

  /** Every convert answer says how much of the month's quota is left: remembered for cards and popup. */
  function noteQuota(seen: QuotaInfo, askedIn: number) {
    // an answer from the server or key before a change (the cache's generation moved) is not this one's quota
    if (seen.limit === null || seen.remaining === null || askedIn !== cache.generation) return;
    quota = seen;
    void local.set({ [QUOTA_KEY]: seen });
  }

  function currentClient(): IpAtlasClient | null {
    if (!isConfigured(settings)) return null;
    try {
      client ??= createClient({ baseUrl: settings.serverUrl, apiKey: settings.apiKey });
    } catch {
      return null; // not a URL: the options page says so
    }
    return client;
  }

  const batcher = createLookupBatcher({
    backoff,
    cache,
    async fetchBatch(ips) {
      const api = currentClient();
      if (!api) throw new Error(NOT_CONFIGURED.message);
      const asked = cache.generation;
      const { data, quota: seen } = await api.bulkConvert(ips);
      noteQuota(seen, asked);
      // Answers come in request order, one per address.
      return new Map(ips.map((ip, i): [string, IpObject | null] => [ip, data[i]?.conversion ?? null]));
    },
  });

  async function lookup(ips: string[]): Promise<LookupResponse> {
    if (!currentClient()) return { results: {}, error: NOT_CONFIGURED };
    if (ips.length === 0) return { results: {}, error: null };
    const answer = await batcher.lookup(ips);
    return { results: Object.fromEntries(answer.found), error: answer.error ? toWireError(answer.error) : null, quota };
  }

  async function ownIp(): Promise<OwnIpResponse> {
    const api = currentClient();
    if (!api) return { data: null, error: NOT_CONFIGURED };
    // Each popup opening would otherwise cost a conversion.
    const remembered = (await session.get(OWN_IP_KEY))[OWN_IP_KEY] as { data: OwnIpResponse["data"]; at: number } | undefined;
    if (remembered && Date.now() - remembered.at < OWN_IP_TTL_MS) return { data: remembered.data, error: null };
    const blocked = backoff.blocking();
    if (blocked) return { data: null, error: toWireError(blocked) };
    try {
      const asked = cache.generation;
      const { data, quota: seen } = await api.convert();
      backoff.succeeded();
      noteQuota(seen, asked);
      if (asked === cache.generation) await session.set({ [OWN_IP_KEY]: { data, at: Date.now() } });
      return { data, error: null };
    } catch (error) {
      if (!isApiError(error)) throw error;
      backoff.failed(error);
      return { data: null, error: toWireError(error) };
    }
  }

  async function tabServer(tabId: number, url: string): Promise<TabServerResponse> {
    let host: string | null = null;
    try {
      host = new URL(url).hostname || null;
    } catch {
      host = null;
    }
    const { ip, source } = await tabs.lookup(tabId, url);
    const parsed = ip ? parseIp(ip) : null;
    if (!parsed) return { host, ip, source, isPublic: false, data: null, error: null };
    const isPublic = isPublicAddress(parsed.lookup);
    if (!isPublic) return { host, ip: parsed.ip, source, isPublic, data: null, error: null };
    const answer = await lookup([parsed.ip]);
    const data = answer.results[parsed.ip] ?? null;
    return { host, ip: parsed.ip, source, isPublic, data, error: answer.error };
  }

  // MV3 `action`, Firefox MV2 `browserAction`.
  const action = (browser.action ?? (browser as unknown as { browserAction?: ActionApi }).browserAction) as ActionApi | undefined;
  const siteFlag = createSiteFlag({
    action,
    tabServer: async (tabId, url) => {
      await ready;
      return tabServer(tabId, url);
    },
    drawFlag: flagDrawer(browser),
    defaultIcon: { 16: "/icon/16.png", 32: "/icon/32.png" },
  });

  async function handle(request: WorkerRequest): Promise<unknown> {
    await ready;
    switch (request.type) {
      case "lookup":
        return lookup(publicIps(request.ips));
      case "own-ip":
        return ownIp();
      case "tab-server":
        return tabServer(request.tabId, request.url);
    }
  }

  // sendResponse + `return true` works in every Chrome and Firefox version, unlike returned promises.
  browser.runtime.onMessage.addListener((message: unknown, _sender, sendResponse: (r: unknown) => void) => {
    if (!isWorkerRequest(message)) return undefined;
    handle(message).then(sendResponse, (error: unknown) => {
      const wire: WireError = { kind: "bad-response", message: String((error as Error)?.message ?? error), status: 0, retryAt: null };
      sendResponse({ results: {}, data: null, error: wire });
    });
    return true;
  });

  browser.storage.onChanged.addListener((changes, area) => {
    if (area !== "local" || !(SETTINGS_KEY in changes)) return;
    // Chained: a lookup that arrives meanwhile goes to the new server with the new key.
    ready = ready.then(() => loadSettings(local)).then(async (next) => {
      const serverChanged = next.serverUrl !== settings.serverUrl || next.apiKey !== settings.apiKey;
      settings = next;
      if (serverChanged) {
        client = null;
        quota = null;
        // The cache's generation moves at once: an answer from the previous server or key that
        // arrives after this is not remembered anywhere (lookups, own address, quota).
        const cleared = cache.clear();
        await syncOriginRule(rules, settings.serverUrl, extensionOrigin);
        backoff.succeeded();
        await Promise.all([cleared, session.remove(OWN_IP_KEY), local.remove(QUOTA_KEY)]);
      }
    });
    ready.catch(() => {}); // a failed storage read leaves the previous settings in force
  });

  browser.webRequest.onResponseStarted.addListener((details) => tabs.onResponseStarted(details), {
    urls: ["<all_urls>"],
    types: ["main_frame"],
  });
  browser.tabs.onRemoved.addListener((tabId) => tabs.onTabRemoved(tabId));
  // Loads, reloads and in-page (history API) navigations: the flag goes back on the icon.
  browser.tabs.onUpdated.addListener((tabId, change, tab) => {
    if (change.status === "complete" || change.url) void siteFlag.update(tabId, tab.url);
  });
  installLookupMenu(browser);
  setInterval(() => void cache.prune(), PRUNE_EVERY_MS);
}
