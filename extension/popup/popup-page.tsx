/**
 * Popup: the current site's server address (flag, place, network), your own address, a box to
 * look up any address, links to the lookup services, the quota left, and a switch for this site.
 * Before the extension is set up it says how, and looks up nothing.
 */
import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import type { QuotaInfo } from "../../lib/client/index.js";
import { t } from "../shared/i18n.js";
import { IpDetails } from "../shared/ip-details.js";
import type { LookupResponse, OwnIpResponse, TabServerResponse } from "../shared/messages.js";
import { describeQuota } from "../shared/quota.js";
import { isActiveOn, isConfigured, normalizeSite, withSiteEnabled, type Settings } from "../shared/settings.js";
import { describeError } from "../shared/wire-error.js";
import { parseLookupQuery } from "./lookup-query.js";

export interface PopupPageProps {
  loadSettings(): Promise<Settings>;
  /** stores the whole settings in the call itself: a popup closes the moment the user clicks away */
  save(settings: Settings): Promise<Settings>;
  ownIp(): Promise<OwnIpResponse>;
  /** null when there is no ordinary tab (e.g. a browser page) */
  tabServer(): Promise<TabServerResponse | null>;
  lookup(ip: string): Promise<LookupResponse>;
  quota(): Promise<QuotaInfo | null>;
  openOptions(): void;
  /** text to look up at once (context menu, shortcut) */
  query?: string;
}

type Looked =
  | { status: "idle" }
  | { status: "invalid"; text: string }
  | { status: "loading" }
  | { status: "done"; ip: string; isPublic: boolean; response: LookupResponse | null };

export function PopupPage(props: PopupPageProps) {
  const settings = useSignal<Settings | null>(null);
  const own = useSignal<OwnIpResponse | null>(null);
  const tab = useSignal<TabServerResponse | null | undefined>(undefined);
  const quota = useSignal<QuotaInfo | null>(null);
  const query = useSignal(props.query ?? "");
  const looked = useSignal<Looked>({ status: "idle" });

  async function lookUp(text: string) {
    const parsed = parseLookupQuery(text);
    if (!parsed.ok) {
      looked.value = { status: "invalid", text };
      return;
    }
    const shown = parsed.prefix === undefined ? parsed.ip : `${parsed.ip}/${parsed.prefix}`;
    if (!parsed.isPublic) {
      looked.value = { status: "done", ip: shown, isPublic: false, response: null };
      return;
    }
    looked.value = { status: "loading" };
    const response = await props.lookup(parsed.ip);
    looked.value = { status: "done", ip: shown, isPublic: true, response: { ...response, results: { [shown]: response.results[parsed.ip] ?? null } } };
    if (response.quota) quota.value = response.quota;
  }

  useEffect(() => {
    void props.loadSettings().then((s) => {
      settings.value = s;
      if (!isConfigured(s)) return;
      void props.ownIp().then((r) => (own.value = r));
      void props.tabServer().then((r) => (tab.value = r));
      void props.quota().then((q) => (quota.value = q));
      if (props.query) void lookUp(props.query);
    });
  }, []);

  const s = settings.value;
  if (!s) return <main aria-busy="true" style="min-width: 320px" />;
  const services = s.services;
  const options = (
    <div class="row">
      <button type="button" onClick={props.openOptions}>
        {t("options")}
      </button>
    </div>
  );

  if (!isConfigured(s)) {
    return (
      <main style="min-width: 320px; max-width: 380px">
        <h1>IP Atlas</h1>
        <p class="hint" role="status">{t("setupHint")}</p>
        {options}
      </main>
    );
  }

  const tb = tab.value;
  const site = tb?.host ? normalizeSite(tb.host) : null;
  const l = looked.value;
  const quotaText = describeQuota(quota.value);

  return (
    <main style="min-width: 320px; max-width: 380px">
      <h1>IP Atlas</h1>

      <section aria-labelledby="tab-title">
        <h2 id="tab-title">{tb?.host ? t("thisSiteHost", tb.host) : t("thisSite")}</h2>
        {tb === undefined && <p class="muted">{t("lookingUp")}</p>}
        {tb === null && <p class="muted">{t("noWebPage")}</p>}
        {tb && !tb.ip && <p class="muted">{t("serverUnknown")}</p>}
        {tb?.ip && <IpDetails ip={tb.ip} data={tb.data} isPublic={tb.isPublic} services={services} />}
        {tb?.error && <p class="status error">{describeError(tb.error)}</p>}
        {site && (
          <label class="inline">
            <input
              type="checkbox"
              checked={isActiveOn(s, site)}
              disabled={!s.enabled}
              onChange={(e) => {
                const next = { ...s, disabledSites: withSiteEnabled(s, site, e.currentTarget.checked) };
                settings.value = next;
                void props.save(next);
              }}
            />
            {t("onForSite", site)}
          </label>
        )}
        {!s.enabled && <p class="muted">{t("offEverywhere")}</p>}
      </section>

      <section aria-labelledby="own-title">
        <h2 id="own-title">{t("yourAddress")}</h2>
        {own.value === null && <p class="muted">{t("lookingUp")}</p>}
        {own.value?.error && <p class="status error">{describeError(own.value.error)}</p>}
        {own.value?.data?.ip && <IpDetails ip={own.value.data.ip} data={own.value.data} services={services} />}
      </section>

      <section aria-labelledby="lookup-title">
        <h2 id="lookup-title">{t("lookupTitle")}</h2>
        <form
          class="row"
          role="search"
          onSubmit={(e) => {
            e.preventDefault();
            void lookUp(query.value);
          }}
        >
          <input
            type="text"
            aria-label={t("lookupLabel")}
            placeholder="8.8.8.8, 2001:db8::1, 45.33.0.0/16"
            spellcheck={false}
            value={query.value}
            onInput={(e) => (query.value = e.currentTarget.value)}
            style="flex: 1"
          />
          <button type="submit">{t("lookupButton")}</button>
        </form>
        <div aria-live="polite">
          {l.status === "invalid" && <p class="status error">{t("notAnAddress", l.text.slice(0, 80))}</p>}
          {l.status === "loading" && <p class="muted">{t("lookingUp")}</p>}
          {l.status === "done" && (
            <>
              <IpDetails ip={l.ip} data={l.response?.results[l.ip] ?? null} isPublic={l.isPublic} services={services} />
              {l.response?.error && <p class="status error">{describeError(l.response.error)}</p>}
            </>
          )}
        </div>
      </section>

      {quotaText && <p class="muted" aria-label={t("quotaLabel")}>{quotaText}</p>}
      {options}
    </main>
  );
}
