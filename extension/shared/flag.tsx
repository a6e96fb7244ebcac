/**
 * A country flag: the server's SVG (`flag.img`, docs/api.md#the-ip-object) where the page lets it
 * load, else the emoji (some systems, e.g. Windows or a bare Linux, draw no flag emoji, so the
 * image comes first). No referrer: the user's server need not learn which page they were reading.
 */
import { useState } from "preact/hooks";
import { t } from "./i18n.js";

export function Flag({ img, emoji, country }: { img: string | null; emoji: string | null; country: string | null }) {
  const [broken, setBroken] = useState(false);
  const label = country ? t("flagOf", country) : t("flag");
  if (img && !broken) {
    return (
      <img
        class="flag"
        src={img}
        alt={label}
        width={24}
        height={18}
        referrerpolicy="no-referrer"
        onError={() => setBroken(true)}
      />
    );
  }
  return emoji ? <span class="flag" role="img" aria-label={label}>{emoji}</span> : null;
}
