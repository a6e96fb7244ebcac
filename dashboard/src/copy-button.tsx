/** Copies a value to the clipboard and says so, visibly and to screen readers. */
import { useSignal } from "@preact/signals";
import { announce } from "./state.js";

export function CopyButton({ value, label }: { value: string; label: string }) {
  const copied = useSignal(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      copied.value = true;
      announce(`${label} copied to the clipboard`);
      setTimeout(() => (copied.value = false), 2000);
    } catch {
      announce("Copying failed: select the text and copy it by hand");
    }
  };
  return (
    <button type="button" class="secondary" onClick={copy} aria-label={`Copy ${label}`}>
      {copied.value ? "Copied" : "Copy"}
    </button>
  );
}
