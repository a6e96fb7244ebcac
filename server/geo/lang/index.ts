/**
 * Names in the asker's language (docs/api.md "Language"). MaxMind-format files carry names in de,
 * en, es, fr, ja, pt-BR, ru and zh-CN; country and continent names in any other language come from
 * the runtime's CLDR data (Intl.DisplayNames). A name missing in the language stays English.
 */

/** BCP 47 tags are short; anything longer is refused before Intl parses it. */
const MAX_TAG_LENGTH = 35;

/** The canonical form of a language tag ("pt-br" → "pt-BR"), or null when it is not one. */
export function canonicalLang(tag: string): string | null {
  const text = tag.trim();
  if (text === "" || text.length > MAX_TAG_LENGTH || text === "*") return null;
  try {
    return Intl.getCanonicalLocales(text)[0] ?? null;
  } catch {
    return null;
  }
}

/**
 * The language to answer in from an Accept-Language header (RFC 9110 §12.5.4): the valid tag of
 * highest weight, the earlier one on a tie; null when there is none (English).
 */
export function langFromAcceptLanguage(header: string | undefined): string | null {
  if (!header) return null;
  let best: { lang: string; q: number } | null = null;
  for (const part of header.slice(0, 1000).split(",")) {
    const [tag = "", ...params] = part.split(";");
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!(q > 0 && q <= 1)) continue;
    const lang = canonicalLang(tag);
    if (lang && (!best || q > best.q)) best = { lang, q };
  }
  return best?.lang ?? null;
}

/** English needs no work: the names the engine has are English already. */
export function isEnglish(lang: string | null): boolean {
  return lang === null || lang === "en" || lang.startsWith("en-");
}

export type Names = Readonly<Record<string, string>>;

/**
 * The name in `lang` from a MaxMind `names` map: the exact tag, then the same language in any
 * region or script the data has ("pt" finds "pt-BR", "zh-TW" finds "zh-CN").
 */
export function nameIn(names: Names | null | undefined, lang: string): string | null {
  if (!names) return null;
  const exact = names[lang];
  if (exact) return exact;
  const language = lang.split("-")[0]!;
  if (names[language]) return names[language];
  for (const key in names) if (key.split("-")[0] === language) return names[key]!;
  return null;
}

const displayNames = new Map<string, Intl.DisplayNames | null>();

function regionNames(lang: string): Intl.DisplayNames | null {
  let names = displayNames.get(lang);
  if (names === undefined) {
    // the runtime falls back to its default locale for a language it lacks: only take exact support
    const supported = Intl.DisplayNames.supportedLocalesOf([lang]).length > 0;
    names = supported ? new Intl.DisplayNames([lang], { type: "region", fallback: "none" }) : null;
    if (displayNames.size >= 200) displayNames.clear();
    displayNames.set(lang, names);
  }
  return names;
}

/** UN M49 regions of the continent codes, which CLDR names in every language. */
const CONTINENT_REGIONS: Record<string, string> = { AF: "002", AN: "AQ", AS: "142", EU: "150", NA: "003", OC: "009", SA: "005" };

/** A country's name in `lang` by its ISO code, from CLDR; null when the runtime has none. */
export function countryNameIn(code: string, lang: string): string | null {
  try {
    return regionNames(lang)?.of(code) ?? null;
  } catch {
    return null;
  }
}

export function continentNameIn(code: string, lang: string): string | null {
  const region = CONTINENT_REGIONS[code];
  return region ? countryNameIn(region, lang) : null;
}
