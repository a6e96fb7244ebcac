/**
 * What one widget shows, read from its own attributes with the embedding script's `data-*`
 * as defaults. Pure (no DOM access) so it can be unit-tested in Node.
 */

export const FIELDS = ["flag", "country", "region", "city", "time", "asn", "ip"] as const;
export type Field = (typeof FIELDS)[number];
export const DEFAULT_FIELDS: readonly Field[] = ["flag", "country", "city", "asn"];

/** the first of each list is the default */
export const THEMES = ["auto", "light", "dark"] as const;
export type Theme = (typeof THEMES)[number];

/** card: every chosen field, wrapping; badge: one compact pill, the rest on hover or focus */
export const VARIANTS = ["card", "badge"] as const;
export type Variant = (typeof VARIANTS)[number];

export interface WidgetSettings {
  /** public key (`ipa_pk_…`); "" when none was given */
  key: string;
  /** fixed address to show; "" means the visitor's own address */
  ip: string;
  fields: readonly Field[];
  theme: Theme;
  variant: Variant;
  /** BCP 47 tag for country names; "" means the page's language */
  lang: string;
}

/** The attribute names an `<ipatlas-widget>` reacts to; the script tag takes them as `data-*`. */
export const SETTING_ATTRIBUTES = ["key", "ip", "fields", "theme", "variant", "lang"] as const;
export type SettingAttribute = (typeof SETTING_ATTRIBUTES)[number];

/** An attribute lookup: the element's own value wins, then the script's `data-*` value. */
export type AttributeSource = (name: SettingAttribute) => string | null | undefined;

export function parseFields(value: string | null | undefined): readonly Field[] {
  if (!value) return DEFAULT_FIELDS;
  const wanted = value.toLowerCase().split(/[\s,]+/);
  // Keep the widget's own order so `fields="asn,flag"` and `fields="flag,asn"` look the same.
  const fields = FIELDS.filter((field) => wanted.includes(field));
  return fields.length ? fields : DEFAULT_FIELDS;
}

/** the value when it is one of the options (case-insensitive), else the first option */
function oneOf<T extends string>(options: readonly T[], value: string | null | undefined): T {
  const wanted = value?.trim().toLowerCase() ?? "";
  return (options as readonly string[]).includes(wanted) ? (wanted as T) : options[0]!;
}

export function parseTheme(value: string | null | undefined): Theme {
  return oneOf(THEMES, value);
}

export function parseVariant(value: string | null | undefined): Variant {
  return oneOf(VARIANTS, value);
}

export function readSettings(own: AttributeSource, fallback: AttributeSource = () => null): WidgetSettings {
  const get = (name: SettingAttribute) => (own(name) ?? fallback(name) ?? "").trim();
  return {
    key: get("key"),
    ip: get("ip"),
    fields: parseFields(get("fields")),
    theme: parseTheme(get("theme")),
    variant: parseVariant(get("variant")),
    lang: get("lang"),
  };
}

/** Why a key must not be used, or null when it looks like a public key. */
export function keyProblem(key: string): string | null {
  if (!key) return "No public key: set the key attribute or data-key on the script tag";
  if (key.startsWith("ipa_sk_")) return "A secret key must never be put in a web page: use the website's public key (ipa_pk_…)";
  if (!key.startsWith("ipa_pk_")) return "The key is not a public key (ipa_pk_…)";
  return null;
}
