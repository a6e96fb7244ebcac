/** Firefox's `dns.resolve` as a ResolveHost; null where the API does not exist (Chrome). */
import type { WxtBrowser as Browser } from "wxt/browser";
import type { ResolveHost } from "./tab-server-ips.js";

interface DnsApi {
  resolve(host: string): Promise<{ addresses: string[] }>;
}

export function firefoxDnsResolver(browser: Browser): ResolveHost | null {
  const dns = (browser as unknown as { dns?: DnsApi }).dns;
  if (!dns?.resolve) return null;
  return async (host) => (await dns.resolve(host)).addresses[0] ?? null;
}
