/**
 * The toolbar icon is the current site's flag, per tab, with a tooltip naming the country and the
 * server's address. Chrome resets a tab's icon when the tab navigates, so it is set again on every
 * load and in-page navigation; the address's lookup comes from the worker's cache (one per
 * address), the drawn flag from memory (one per flag).
 */
import type { TabServerResponse } from "../shared/messages.js";
import { t } from "../shared/i18n.js";
import type { DrawFlag } from "./offscreen-flags.js";

export interface ActionApi {
  setIcon(details: { tabId: number; imageData?: Record<number, ImageData>; path?: Record<number, string> }): Promise<void>;
  setTitle(details: { tabId: number; title: string }): Promise<void>;
}

export interface SiteFlagOptions {
  action: ActionApi | undefined;
  tabServer(tabId: number, url: string): Promise<TabServerResponse>;
  drawFlag: DrawFlag;
  /** the extension's own icon, for sites without a known country */
  defaultIcon: Record<number, string>;
}

export interface SiteFlag {
  update(tabId: number, url: string | undefined): Promise<void>;
}

/** "Germany · 5.9.0.1 (IPv4)"; "IP Atlas" when nothing is known. */
export function siteTitle(server: TabServerResponse): string {
  if (!server.ip) return "IP Atlas";
  const version = server.ip.includes(":") ? "IPv6" : "IPv4";
  const country = !server.isPublic
    ? t("privateAddress")
    : server.data?.continent?.country?.name ?? t("unknownLocation");
  return t("siteTitle", country, server.ip, version);
}

export function createSiteFlag({ action, tabServer, drawFlag, defaultIcon }: SiteFlagOptions): SiteFlag {
  const drawn = new Map<string, Promise<Record<number, ImageData> | null>>();
  const flagOf = (url: string) => {
    let images = drawn.get(url);
    if (!images) {
      images = drawFlag(url);
      drawn.set(url, images);
      // A failed drawing may work next time (server back up).
      void images.then((done) => done ?? drawn.delete(url));
    }
    return images;
  };

  return {
    async update(tabId, url) {
      if (!action || tabId < 0 || !url || !/^https?:/.test(url)) return;
      const server = await tabServer(tabId, url);
      const img = server.isPublic ? server.data?.continent?.country?.flag?.img : null;
      const images = img ? await flagOf(img) : null;
      await Promise.all([
        action.setTitle({ tabId, title: siteTitle(server) }),
        images ? action.setIcon({ tabId, imageData: images }) : action.setIcon({ tabId, path: defaultIcon }),
      ]).catch(() => {}); // the tab closed meanwhile
    },
  };
}
