/** Country names in the reader's language through Intl.DisplayNames; the API's English name otherwise. */

const namers = new Map<string, Intl.DisplayNames | null>();

function namer(lang: string): Intl.DisplayNames | null {
  if (!namers.has(lang)) {
    let displayNames: Intl.DisplayNames | null = null;
    try {
      displayNames = new Intl.DisplayNames(lang ? [lang] : undefined, { type: "region" });
    } catch {
      // malformed tag or no Intl.DisplayNames: fall back to the English name
    }
    namers.set(lang, displayNames);
  }
  return namers.get(lang)!;
}

export function countryName(code: string | null | undefined, lang: string, fallback: string | null | undefined): string {
  if (code) {
    try {
      const name = namer(lang)?.of(code.toUpperCase());
      if (name && name !== code.toUpperCase()) return name;
    } catch {
      // code Intl does not know (e.g. XK on old engines)
    }
  }
  return fallback ?? code ?? "";
}
