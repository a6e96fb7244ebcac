/**
 * The user's settings (options page and popup), kept under one key in extension storage so every
 * context reads the same thing and `storage.onChanged` tells them when it changes.
 */
import { DEFAULT_SERVICES, sanitizeServices, type LookupService } from "./services.js";
import type { StorageAreaLike } from "./storage-area.js";

export interface Settings {
  /** the user's IP Atlas server, e.g. `https://geo.example.com` */
  serverUrl: string;
  /** a public key (`ipa_pk_`) bound to this extension's origin */
  apiKey: string;
  /** global on/off */
  enabled: boolean;
  /** host names where the extension stays off, lowercase */
  disabledSites: string[];
  /** how long a looked-up address is remembered */
  cacheTtlMinutes: number;
  /**
   * Look up the addresses that scroll into view before they are hovered. Off by default: every
   * address on screen then counts against the project's monthly quota.
   */
  prefetchVisible: boolean;
  /** pages the popup and card link to for an address (options: "Lookup services") */
  services: LookupService[];
}

export const SETTINGS_KEY = "settings";
export const CACHE_TTL_MINUTES = { min: 1, max: 60 * 24 * 30, default: 60 * 24 } as const;

export const DEFAULT_SETTINGS: Settings = {
  serverUrl: "",
  apiKey: "",
  enabled: true,
  disabledSites: [],
  cacheTtlMinutes: CACHE_TTL_MINUTES.default,
  prefetchVisible: false,
  services: [...DEFAULT_SERVICES],
};

/** A host name as the disabled list keeps it: lowercase, no `www.`; null for anything that is not a host. */
export function normalizeSite(input: string): string | null {
  let text = input.trim().toLowerCase();
  if (!text) return null;
  try {
    text = new URL(text.includes("://") ? text : `http://${text}`).hostname;
  } catch {
    return null;
  }
  return text.replace(/^www\./, "") || null;
}

/** Whatever is stored (older versions, hand edits) becomes valid settings. */
export function sanitizeSettings(raw: unknown): Settings {
  const value = (raw && typeof raw === "object" ? raw : {}) as Partial<Record<keyof Settings, unknown>>;
  const ttl = Number(value.cacheTtlMinutes);
  const sites = Array.isArray(value.disabledSites) ? value.disabledSites : [];
  return {
    serverUrl: typeof value.serverUrl === "string" ? value.serverUrl.trim() : DEFAULT_SETTINGS.serverUrl,
    apiKey: typeof value.apiKey === "string" ? value.apiKey.trim() : DEFAULT_SETTINGS.apiKey,
    enabled: typeof value.enabled === "boolean" ? value.enabled : DEFAULT_SETTINGS.enabled,
    disabledSites: [
      ...new Set(sites.map((s) => (typeof s === "string" ? normalizeSite(s) : null)).filter((s): s is string => !!s)),
    ],
    cacheTtlMinutes: Number.isFinite(ttl)
      ? Math.min(CACHE_TTL_MINUTES.max, Math.max(CACHE_TTL_MINUTES.min, Math.round(ttl)))
      : DEFAULT_SETTINGS.cacheTtlMinutes,
    prefetchVisible: value.prefetchVisible === true,
    services: sanitizeServices(value.services),
  };
}

export async function loadSettings(area: StorageAreaLike): Promise<Settings> {
  const stored = await area.get(SETTINGS_KEY);
  return sanitizeSettings(stored[SETTINGS_KEY]);
}

/**
 * Stores the whole settings, asking storage in the same call, with nothing read first: the options
 * page and the popup hold the whole state, and a tab or popup closed right after an edit must not
 * lose it.
 */
export async function writeSettings(area: StorageAreaLike, settings: Settings): Promise<Settings> {
  const next = sanitizeSettings(settings);
  await area.set({ [SETTINGS_KEY]: next });
  return next;
}

/** Is the extension active on a page of this host? */
export function isActiveOn(settings: Settings, hostname: string): boolean {
  if (!settings.enabled) return false;
  const site = normalizeSite(hostname);
  return site === null || !settings.disabledSites.includes(site);
}

/** Adds or removes a host from the disabled list (the popup's per-site switch). */
export function withSiteEnabled(settings: Settings, hostname: string, enabled: boolean): string[] {
  const site = normalizeSite(hostname);
  if (!site) return settings.disabledSites;
  const rest = settings.disabledSites.filter((s) => s !== site);
  return enabled ? rest : [...rest, site];
}

export function isConfigured(settings: Settings): boolean {
  return settings.serverUrl !== "" && settings.apiKey !== "";
}
