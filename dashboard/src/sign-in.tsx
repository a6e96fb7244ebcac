/** Sign-in with the admin token. Wrong tokens are answered ever more slowly by the server. */
import { useSignal } from "@preact/signals";
import { api } from "./api.js";
import { errorText } from "./format.js";
import { announce, signedIn } from "./state.js";

export function SignIn() {
  const token = useSignal("");
  const error = useSignal("");
  const busy = useSignal(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    busy.value = true;
    error.value = "";
    try {
      await api.signIn(token.value);
      token.value = "";
      signedIn.value = true;
      announce("Signed in");
    } catch (e) {
      error.value = errorText(e);
    } finally {
      busy.value = false;
    }
  };

  return (
    <main class="sign-in" id="main">
      <form onSubmit={submit} class="card" aria-describedby="sign-in-help">
        <h1>IP Atlas dashboard</h1>
        <p id="sign-in-help" class="muted">
          Sign in with the admin token: <code>IPATLAS_ADMIN_TOKEN</code>, or the one printed at first start and
          saved as <code>admin-token</code> in the data dir.
        </p>
        <label for="admin-token">Admin token</label>
        <input
          id="admin-token"
          type="password"
          autocomplete="current-password"
          required
          value={token.value}
          onInput={(e) => (token.value = e.currentTarget.value)}
          aria-invalid={error.value ? "true" : undefined}
          aria-describedby={error.value ? "sign-in-error" : undefined}
        />
        {error.value && (
          <p id="sign-in-error" class="error" role="alert">
            {error.value}
          </p>
        )}
        <button type="submit" disabled={busy.value}>
          {busy.value ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </main>
  );
}
