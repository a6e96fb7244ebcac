/**
 * Options: server and key with a Test connection that says plainly what is wrong (and, for an
 * unregistered origin, shows this extension's origin and the command that registers it), the
 * global switch, the sites where the extension is off, and the cache lifetime. Every change is
 * saved at once; the worker and content scripts follow through storage.onChanged.
 */
import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { CACHE_TTL_MINUTES, normalizeSite, type Settings } from "../shared/settings.js";
import { describeError } from "../shared/wire-error.js";
import { IpDetails } from "../shared/ip-details.js";
import { CopyButton } from "../shared/copy-button.js";
import { t } from "../shared/i18n.js";
import { ServicesEditor } from "./services-editor.js";
import { checkFields, registerCommand, testConnection, type ConnectionResult } from "./connection-check.js";

export interface OptionsPageProps {
  load(): Promise<Settings>;
  /** stores the whole state; called at every change */
  save(settings: Settings): Promise<Settings>;
  /** this extension's origin: chrome-extension://<id> or moz-extension://<uuid> */
  origin: string;
  /** makes sure requests to this server carry the extension's Origin (origin-header.ts) */
  prepareServer(serverUrl: string): Promise<void>;
}

type Status =
  | { kind: "idle" }
  | { kind: "testing" }
  | { kind: "invalid"; message: string }
  | ({ kind: "tested" } & ConnectionResult);

export function OptionsPage({ load, save, origin, prepareServer }: OptionsPageProps) {
  const settings = useSignal<Settings | null>(null);
  const status = useSignal<Status>({ kind: "idle" });
  const newSite = useSignal("");
  const siteError = useSignal<string | null>(null);

  useEffect(() => {
    void load().then((s) => (settings.value = s));
  }, []);

  const update = (patch: Partial<Settings>) => {
    settings.value = { ...settings.value!, ...patch };
    void save(settings.value!); // the whole state: two quick edits cannot undo each other
  };

  const s = settings.value;
  if (!s) return <main aria-busy="true">{t("loading")}</main>;

  const test = async () => {
    const problem = checkFields(s.serverUrl, s.apiKey);
    if (problem) {
      status.value = { kind: "invalid", message: problem };
      return;
    }
    status.value = { kind: "testing" };
    await save(s);
    await prepareServer(s.serverUrl);
    status.value = { kind: "tested", ...(await testConnection(s.serverUrl, s.apiKey)) };
  };

  const addSite = (event: Event) => {
    event.preventDefault();
    const site = normalizeSite(newSite.value);
    if (!site) {
      siteError.value = t("siteInvalid");
      return;
    }
    siteError.value = null;
    newSite.value = "";
    if (!s.disabledSites.includes(site)) update({ disabledSites: [...s.disabledSites, site] });
  };

  const st = status.value;
  return (
    <main>
      <h1>{t("optionsTitle")}</h1>

      <h2>{t("serverHeading")}</h2>
      <label for="server-url">{t("serverUrl")}</label>
      <input
        id="server-url"
        type="url"
        placeholder="https://geo.example.com"
        value={s.serverUrl}
        onInput={(e) => update({ serverUrl: e.currentTarget.value })}
      />
      <label for="api-key">{t("apiKey")}</label>
      <input
        id="api-key"
        type="text"
        spellcheck={false}
        autocomplete="off"
        placeholder="ipa_pk_…"
        value={s.apiKey}
        onInput={(e) => update({ apiKey: e.currentTarget.value })}
      />
      <p class="muted">
        {t("apiKeyNote")} <code>{origin}</code>
      </p>
      <div class="row">
        <button type="button" class="primary" onClick={test} disabled={st.kind === "testing"}>
          {t("testConnection")}
        </button>
      </div>
      <div role="status" aria-live="polite">
        {st.kind === "testing" && <p class="status">{t("testing")}</p>}
        {st.kind === "invalid" && <p class="status error">{st.message}</p>}
        {st.kind === "tested" && st.ok && (
          <div class="status ok">
            <p>{t("connected")}</p>
            {st.data?.ip ? <IpDetails ip={st.data.ip} data={st.data} /> : <p class="muted">{t("noAddress")}</p>}
          </div>
        )}
        {st.kind === "tested" && !st.ok && (
          <div class="status error">
            <p>{describeError(st.error)}</p>
            {st.error.kind === "origin-not-allowed" && (
              <>
                <p>
                  {t("extensionOrigin")} <code>{origin}</code> <CopyButton text={origin} label={t("copyOrigin")} />
                </p>
                <p>{t("registerHint")}</p>
                <pre>{registerCommand(origin)}</pre>
                <CopyButton text={registerCommand(origin)} label={t("copyCommand")} />
              </>
            )}
          </div>
        )}
      </div>

      <h2>{t("whereHeading")}</h2>
      <label class="inline">
        <input type="checkbox" checked={s.enabled} onChange={(e) => update({ enabled: e.currentTarget.checked })} />
        {t("enabledLabel")}
      </label>
      <label for="new-site">{t("sitesOff")}</label>
      {s.disabledSites.length === 0 ? (
        <p class="muted">{t("none")}</p>
      ) : (
        <ul class="sites" aria-label={t("sitesOff")}>
          {s.disabledSites.map((site) => (
            <li key={site}>
              <span>{site}</span>
              <button
                type="button"
                aria-label={t("turnOnFor", site)}
                onClick={() => update({ disabledSites: s.disabledSites.filter((x) => x !== site) })}
              >
                {t("remove")}
              </button>
            </li>
          ))}
        </ul>
      )}
      <form class="row" onSubmit={addSite}>
        <input
          id="new-site"
          type="text"
          placeholder="example.com"
          value={newSite.value}
          onInput={(e) => (newSite.value = e.currentTarget.value)}
          style="flex: 1"
        />
        <button type="submit">{t("addSite")}</button>
      </form>
      {siteError.value && <p class="status error">{siteError.value}</p>}

      <h2>{t("cacheHeading")}</h2>
      <label for="cache-ttl">{t("cacheTtl")}</label>
      <input
        id="cache-ttl"
        type="number"
        min={CACHE_TTL_MINUTES.min}
        max={CACHE_TTL_MINUTES.max}
        value={s.cacheTtlMinutes}
        onChange={(e) => update({ cacheTtlMinutes: Number(e.currentTarget.value) })}
      />
      <p class="muted">{t("cacheNote")}</p>

      <h2>{t("quotaHeading")}</h2>
      <label class="inline">
        <input type="checkbox" checked={s.prefetchVisible} onChange={(e) => update({ prefetchVisible: e.currentTarget.checked })} />
        {t("prefetchLabel")}
      </label>
      <p class="muted">{t("prefetchNote")}</p>

      <ServicesEditor services={s.services} onChange={(services) => update({ services })} />
    </main>
  );
}
