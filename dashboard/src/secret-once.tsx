/** A key value that the server shows only once: the value, a copy button and the warning. */
import { useId } from "preact/hooks";
import { CopyButton } from "./copy-button.js";

export function SecretOnce({ title, value, onDismiss }: { title: string; value: string; onDismiss: () => void }) {
  const titleId = useId();
  return (
    <section class="secret-once" role="alert" aria-labelledby={titleId}>
      <h3 id={titleId}>{title}</h3>
      <p class="warning">
        Copy it now: this is the only time it is shown. IP Atlas stores only its hash and cannot show it again.
      </p>
      <div class="copy-row">
        <code class="secret-value" data-testid="secret-value">{value}</code>
        <CopyButton value={value} label="key" />
      </div>
      <button type="button" class="secondary" onClick={onDismiss}>
        I have stored it
      </button>
    </section>
  );
}
