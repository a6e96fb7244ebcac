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
import { checkFields, registerCommand, testConnection, type ConnectionResult } from "./connection-check.js";

export interface OptionsPageProps {
  load(): Promise<Settings>;
  save(patch: Partial<Settings>): Promise<Settings>;
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

function CopyButton({ text, label }: { text: string; label: string }) {
  const copied = useSignal(false);
  return (
    <button
      type="button"
      aria-label={label}
      onClick={() => navigator.clipboard.writeText(text).then(() => (copied.value = true), () => {})}
    >
      {copied.value ? "Copied" : "Copy"}
    </button>
  );
}

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
  if (!s) return <main aria-busy="true">Loading…</main>;

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
      siteError.value = "Enter a host name such as example.com";
      return;
    }
    siteError.value = null;
    newSite.value = "";
    if (!s.disabledSites.includes(site)) update({ disabledSites: [...s.disabledSites, site] });
  };

  const st = status.value;
  return (
    <main>
      <h1>IP Atlas options</h1>

      <h2>Server</h2>
      <label for="server-url">Server URL</label>
      <input
        id="server-url"
        type="url"
        placeholder="https://geo.example.com"
        value={s.serverUrl}
        onInput={(e) => update({ serverUrl: e.currentTarget.value })}
      />
      <label for="api-key">API key</label>
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
        Use a public key bound to this extension's origin <code>{origin}</code>.
      </p>
      <div class="row">
        <button type="button" class="primary" onClick={test} disabled={st.kind === "testing"}>
          Test connection
        </button>
      </div>
      <div role="status" aria-live="polite">
        {st.kind === "testing" && <p class="status">Testing…</p>}
        {st.kind === "invalid" && <p class="status error">{st.message}</p>}
        {st.kind === "tested" && st.ok && (
          <div class="status ok">
            <p>Connected. The server sees you as:</p>
            {st.data?.ip ? <IpDetails ip={st.data.ip} data={st.data} /> : <p class="muted">(no address)</p>}
          </div>
        )}
        {st.kind === "tested" && !st.ok && (
          <div class="status error">
            <p>{describeError(st.error)}</p>
            {st.error.kind === "origin-not-allowed" && (
              <>
                <p>
                  This extension's origin: <code>{origin}</code> <CopyButton text={origin} label="Copy the extension's origin" />
                </p>
                <p>Register it with the key's project, then paste the public key it prints:</p>
                <pre>{registerCommand(origin)}</pre>
                <CopyButton text={registerCommand(origin)} label="Copy the command" />
              </>
            )}
          </div>
        )}
      </div>

      <h2>Where it runs</h2>
      <label class="inline">
        <input type="checkbox" checked={s.enabled} onChange={(e) => update({ enabled: e.currentTarget.checked })} />
        Show IP cards on web pages
      </label>
      <label for="new-site">Sites where it is off</label>
      {s.disabledSites.length === 0 ? (
        <p class="muted">None.</p>
      ) : (
        <ul class="sites" aria-label="Sites where it is off">
          {s.disabledSites.map((site) => (
            <li key={site}>
              <span>{site}</span>
              <button
                type="button"
                aria-label={`Turn on for ${site}`}
                onClick={() => update({ disabledSites: s.disabledSites.filter((x) => x !== site) })}
              >
                Remove
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
        <button type="submit">Add site</button>
      </form>
      {siteError.value && <p class="status error">{siteError.value}</p>}

      <h2>Cache</h2>
      <label for="cache-ttl">Cache lifetime (minutes)</label>
      <input
        id="cache-ttl"
        type="number"
        min={CACHE_TTL_MINUTES.min}
        max={CACHE_TTL_MINUTES.max}
        value={s.cacheTtlMinutes}
        onChange={(e) => update({ cacheTtlMinutes: Number(e.currentTarget.value) })}
      />
      <p class="muted">Looked-up addresses are remembered this long, so a second visit sends nothing.</p>
    </main>
  );
}
