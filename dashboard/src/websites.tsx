/** Websites of a project: add an origin pattern → public key + widget snippet; roll its key; remove. */
import { useSignal } from "@preact/signals";
import { isExtensionPattern, parseOriginPattern } from "../../lib/origin/index.js";
import { api } from "./api.js";
import { CopyButton } from "./copy-button.js";
import type { AdminWebsite } from "./schemas.js";
import { SecretOnce } from "./secret-once.js";
import { announce } from "./state.js";
import { useProjectItems } from "./use-project-items.js";
import { ErrorAlert } from "./error-alert.js";

const EXAMPLES = [
  ["example.com", "https and http on the default ports"],
  ["*.example.com", "any subdomain, not example.com itself"],
  ["localhost:5173", "a development server"],
  ["https://app.example.com:8443", "exactly this origin"],
  ["chrome-extension://<32 letters a–p>", "a Chrome extension (moz-extension://<uuid> for Firefox); no widget snippet"],
] as const;

export function WebsitesPanel({ projectId }: { projectId: string }) {
  const origin = useSignal("");
  const added = useSignal<{ origin: string; publicKey: string; snippet: string | null } | null>(null);
  const { items: websites, error, act } = useProjectItems(projectId, async () => (await api.websites(projectId)).websites, () => {
    added.value = null;
  });

  const add = (event: Event) => {
    event.preventDefault();
    // the same parser the server uses, so the message is the server's, without a round trip
    const parsed = parseOriginPattern(origin.value);
    if (!parsed.ok) {
      error.value = parsed.error;
      return;
    }
    void act(async () => {
      const result = await api.addWebsite(projectId, origin.value);
      origin.value = "";
      added.value = { origin: result.website.origin, publicKey: result.publicKey, snippet: result.snippet?.html ?? null };
      announce(`Website ${result.website.origin} added`);
    });
  };
  const roll = (website: AdminWebsite) => {
    if (!website.keyId) return;
    if (!confirm(`Roll the public key of ${website.origin}? Pages using the old key stop working at once.`)) return;
    void act(async () => {
      const result = await api.rollKey(website.keyId!);
      added.value = { origin: website.origin, publicKey: result.publicKey ?? "", snippet: result.snippet?.html ?? null };
      announce(`Public key of ${website.origin} rolled`);
    });
  };
  const remove = (website: AdminWebsite) => {
    if (!confirm(`Remove ${website.origin}? Its public key stops working at once.`)) return;
    void act(async () => {
      await api.removeWebsite(website.id);
      announce(`Website ${website.origin} removed`);
    });
  };

  return (
    <section aria-labelledby="websites-title" class="stack">
      <h2 id="websites-title">Websites</h2>
      <p class="muted">
        Each website gets a public key for browser requests; the server accepts it only from origins that match
        the pattern.
      </p>
      <form class="inline-form" onSubmit={add} aria-describedby="origin-examples">
        <label for="website-origin">Origin pattern</label>
        <input
          id="website-origin"
          required
          placeholder="example.com"
          autocapitalize="off"
          spellcheck={false}
          value={origin.value}
          onInput={(e) => (origin.value = e.currentTarget.value)}
          aria-invalid={error.value ? "true" : undefined}
        />
        <button type="submit">Add website</button>
      </form>
      <details id="origin-examples" class="examples">
        <summary>Pattern examples</summary>
        <dl>
          {EXAMPLES.map(([pattern, meaning]) => (
            <>
              <dt>
                <code>{pattern}</code>
              </dt>
              <dd>{meaning}</dd>
            </>
          ))}
        </dl>
      </details>
      <ErrorAlert message={error.value} />
      {added.value && (
        <>
          <SecretOnce title={`Public key for ${added.value.origin}`} value={added.value.publicKey} onDismiss={() => (added.value = null)} />
          {added.value.snippet ? (
            <Snippet html={added.value.snippet} />
          ) : (
            isExtensionPattern(added.value.origin) && (
              <p class="muted">Set this key in the extension's options: an extension calls the API directly and takes no widget snippet.</p>
            )
          )}
        </>
      )}
      {websites.value === null ? (
        <p aria-busy="true">Loading websites…</p>
      ) : websites.value.length === 0 ? (
        <p class="muted">No websites yet.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Websites of this project</caption>
            <thead>
              <tr>
                <th scope="col">Origin pattern</th>
                <th scope="col">Public key</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {websites.value.map((website) => (
                <tr key={website.id}>
                  <th scope="row" data-label="Origin">
                    <code>{website.origin}</code>
                  </th>
                  <td data-label="Public key">{website.keyPrefix ? <code>{website.keyPrefix}…</code> : "none"}</td>
                  <td class="actions">
                    {website.keyId && (
                      <button type="button" class="secondary" onClick={() => roll(website)} aria-label={`Roll the key of ${website.origin}`}>
                        Roll key
                      </button>
                    )}
                    <button type="button" class="danger" onClick={() => remove(website)} aria-label={`Remove ${website.origin}`}>
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p class="muted" id="snippet-again">
        Need a website's snippet again? Keys are stored only as hashes, so no one can read an existing key back: copy{" "}
        <code>data-key</code> from a page that already embeds the widget, or roll the key to get a new key with its snippet here
        (the old key stops working at once).
      </p>
    </section>
  );
}

function Snippet({ html }: { html: string }) {
  return (
    <section class="snippet card" aria-labelledby="snippet-title">
      <h3 id="snippet-title">Widget snippet</h3>
      <p class="muted">Paste it into the page where the widget should appear. The integrity hash pins this widget version.</p>
      <pre tabIndex={0} aria-label="Widget snippet">
        <code data-testid="snippet">{html}</code>
      </pre>
      <CopyButton value={html} label="snippet" />
    </section>
  );
}
