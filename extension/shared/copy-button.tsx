/** A button that copies a text and says so; one for the popup, the options page and anywhere else. */
import { useSignal } from "@preact/signals";
import { t } from "./i18n.js";

export function CopyButton({ text, label }: { text: string; label: string }) {
  const copied = useSignal(false);
  return (
    <button
      type="button"
      aria-label={label}
      onClick={() => navigator.clipboard.writeText(text).then(() => (copied.value = true), () => {})}
    >
      {copied.value ? t("copied") : t("copy")}
    </button>
  );
}
