/** Secret keys of a project: create (shown once), list, roll (new value once, old dead), revoke. */
import { useSignal } from "@preact/signals";
import { api } from "./api.js";
import { formatDate } from "./format.js";
import type { AdminKey } from "./schemas.js";
import { SecretOnce } from "./secret-once.js";
import { announce } from "./state.js";
import { useProjectItems } from "./use-project-items.js";
import { ErrorAlert } from "./error-alert.js";

export function KeysPanel({ projectId }: { projectId: string }) {
  const name = useSignal("");
  const revealed = useSignal<{ title: string; value: string } | null>(null);
  const { items: keys, error, act } = useProjectItems(projectId, async () => (await api.keys(projectId)).keys.filter((k) => k.kind === "secret"), () => {
    revealed.value = null;
  });

  const create = (event: Event) => {
    event.preventDefault();
    void act(async () => {
      const result = await api.createKey(projectId, name.value);
      name.value = "";
      revealed.value = { title: `New secret key “${result.key.name}”`, value: result.secretKey };
      announce(`Key ${result.key.name} created`);
    });
  };
  const roll = (key: AdminKey) => {
    if (!confirm(`Roll “${key.name}”? Its current value stops working at once.`)) return;
    void act(async () => {
      const result = await api.rollKey(key.id);
      revealed.value = { title: `New value of “${key.name}”`, value: result.secretKey ?? "" };
      announce(`Key ${key.name} rolled`);
    });
  };
  const revoke = (key: AdminKey) => {
    if (!confirm(`Revoke “${key.name}”? Requests with it will be refused. This cannot be undone.`)) return;
    void act(async () => {
      await api.revokeKey(key.id);
      announce(`Key ${key.name} revoked`);
    });
  };

  return (
    <section aria-labelledby="keys-title" class="stack">
      <h2 id="keys-title">Secret keys</h2>
      <p class="muted">
        For server-side requests (<code>x-api-key</code> header). Never put a secret key in a web page: use a
        website's public key there.
      </p>
      <form class="inline-form" onSubmit={create}>
        <label for="key-name">Key name</label>
        <input id="key-name" required maxLength={100} placeholder="backend" value={name.value} onInput={(e) => (name.value = e.currentTarget.value)} />
        <button type="submit">Create key</button>
      </form>
      <ErrorAlert message={error.value} />
      {revealed.value && <SecretOnce {...revealed.value} onDismiss={() => (revealed.value = null)} />}
      {keys.value === null ? (
        <p aria-busy="true">Loading keys…</p>
      ) : keys.value.length === 0 ? (
        <p class="muted">No secret keys.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Secret keys of this project</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Prefix</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.value.map((key) => (
                <tr key={key.id} class={key.revokedAt ? "revoked" : ""}>
                  <th scope="row" data-label="Name">
                    {key.name}
                    {key.revokedAt && <span class="badge danger">revoked</span>}
                  </th>
                  <td data-label="Prefix">
                    <code>{key.prefix}…</code>
                  </td>
                  <td data-label="Created">{formatDate(key.createdAt)}</td>
                  <td data-label="Last used">{formatDate(key.lastUsedAt)}</td>
                  <td class="actions">
                    {!key.revokedAt && (
                      <>
                        <button type="button" class="secondary" onClick={() => roll(key)} aria-label={`Roll ${key.name}`}>
                          Roll
                        </button>
                        <button type="button" class="danger" onClick={() => revoke(key)} aria-label={`Revoke ${key.name}`}>
                          Revoke
                        </button>
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
