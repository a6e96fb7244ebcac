/**
 * Lookup services: web pages that tell more about an address (registration, routing), opened with
 * the address filled into a URL template, like Flagfox's actions. The user edits the list in the
 * options; these are the defaults.
 */
export interface LookupService {
  name: string;
  /** `https://…{ip}…`; `{ip}` is replaced by the URL-encoded address */
  url: string;
}

export const IP_PLACEHOLDER = "{ip}";

export const DEFAULT_SERVICES: readonly LookupService[] = [
  { name: "RDAP (rdap.org)", url: "https://rdap.org/ip/{ip}" },
  { name: "BGP (bgp.he.net)", url: "https://bgp.he.net/ip/{ip}" },
  { name: "RIPEstat", url: "https://stat.ripe.net/{ip}" },
];

export const MAX_SERVICES = 20;

/** Why a service cannot be added, or null when it is fine. */
export function checkService(name: string, url: string): string | null {
  if (!name.trim()) return "Give the service a name.";
  if (!url.includes(IP_PLACEHOLDER)) return "The URL needs {ip} where the address goes.";
  try {
    const parsed = new URL(url.replaceAll(IP_PLACEHOLDER, "1.1.1.1"));
    if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return "The URL must start with https:// or http://";
  } catch {
    return "That is not a URL: it should look like https://example.com/ip/{ip}";
  }
  return null;
}

/** Whatever is stored becomes a valid list; anything unusable is dropped. */
export function sanitizeServices(raw: unknown): LookupService[] {
  if (!Array.isArray(raw)) return [...DEFAULT_SERVICES];
  const out: LookupService[] = [];
  for (const item of raw) {
    const { name, url } = (item ?? {}) as Partial<Record<keyof LookupService, unknown>>;
    if (typeof name !== "string" || typeof url !== "string" || checkService(name, url)) continue;
    out.push({ name: name.trim(), url: url.trim() });
  }
  return out.slice(0, MAX_SERVICES);
}

/** The service's page for `ip` (an address or a CIDR block). */
export function serviceUrl(service: LookupService, ip: string): string {
  return service.url.replaceAll(IP_PLACEHOLDER, encodeURIComponent(ip));
}
