/**
 * Popup: your own public address and where it is, the current tab's server address (the page's
 * origin as the browser connected to it), and a switch for this site.
 */
import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { IpDetails } from "../shared/ip-details.js";
import type { OwnIpResponse, TabServerResponse } from "../shared/messages.js";
import { isActiveOn, normalizeSite, withSiteEnabled, type Settings } from "../shared/settings.js";
import { describeError } from "../shared/wire-error.js";

export interface PopupPageProps {
  loadSettings(): Promise<Settings>;
  saveSettings(patch: Partial<Settings>): Promise<Settings>;
  ownIp(): Promise<OwnIpResponse>;
  /** null when there is no ordinary tab (e.g. a browser page) */
  tabServer(): Promise<TabServerResponse | null>;
  openOptions(): void;
}

export function PopupPage(props: PopupPageProps) {
  const settings = useSignal<Settings | null>(null);
  const own = useSignal<OwnIpResponse | null>(null);
  const tab = useSignal<TabServerResponse | null | undefined>(undefined);

  useEffect(() => {
    void props.loadSettings().then((s) => (settings.value = s));
    void props.ownIp().then((r) => (own.value = r));
    void props.tabServer().then((r) => (tab.value = r));
  }, []);

  const t = tab.value;
  const site = t?.host ? normalizeSite(t.host) : null;
  const s = settings.value;

  return (
    <main style="min-width: 300px; max-width: 360px">
      <h1>IP Atlas</h1>

      <section aria-labelledby="own-title">
        <h2 id="own-title">Your address</h2>
        {own.value === null && <p class="muted">Looking up…</p>}
        {own.value?.error && <p class="status error">{describeError(own.value.error)}</p>}
        {own.value?.data?.ip && <IpDetails ip={own.value.data.ip} data={own.value.data} />}
      </section>

      <section aria-labelledby="tab-title">
        <h2 id="tab-title">This site{t?.host ? `: ${t.host}` : ""}</h2>
        {t === undefined && <p class="muted">Looking up…</p>}
        {t === null && <p class="muted">No web page in this tab.</p>}
        {t && !t.ip && <p class="muted">The server address is not known yet: reload the page.</p>}
        {t?.ip && <IpDetails ip={t.ip} data={t.data} isPublic={t.isPublic} />}
        {t?.error && <p class="status error">{describeError(t.error)}</p>}
        {s && site && (
          <label class="inline">
            <input
              type="checkbox"
              checked={isActiveOn(s, site)}
              disabled={!s.enabled}
              onChange={(e) => {
                const disabledSites = withSiteEnabled(s, site, e.currentTarget.checked);
                settings.value = { ...s, disabledSites };
                void props.saveSettings({ disabledSites });
              }}
            />
            On for {site}
          </label>
        )}
        {s && !s.enabled && <p class="muted">Turned off everywhere in the options.</p>}
      </section>

      <div class="row">
        <button type="button" onClick={props.openOptions}>
          Options
        </button>
      </div>
    </main>
  );
}
