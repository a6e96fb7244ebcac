/**
 * ISO 3166-2 codes for subdivision names. DB-IP City Lite (the bundled city data) names the first
 * subdivision (`state1`: "England", "California", "Quebec") but gives no code; the Ip object wants
 * the code as MaxMind writes it, the part after the hyphen (`ENG`, `CA`, `QC`). Names are matched
 * against the top-level ISO 3166-2 entries of their country (the `iso-3166` package) after
 * normalising both sides; a name that matches no entry, or two codes, gets none: nothing is
 * guessed. What each matching step adds, measured: docs/data.md, "Subdivision codes".
 */
import { iso31662 } from "iso-3166";

export interface SubdivisionEntry {
  /** full ISO 3166-2 code, `GB-ENG` */
  code: string;
  name: string;
  /** ISO 3166-1 alpha-2 code for a top-level subdivision, else the ISO 3166-2 code of its parent */
  parent: string;
}

/** code suffixes by country, then by normalised name; null where a name stands for two codes */
type NameMap = Map<string, Map<string, string | null>>;

export interface SubdivisionIndex {
  /** by the normalised ISO name, or a part of it (see `nameForms`) */
  names: NameMap;
  /** by the normalised ISO name less the words that say what kind of subdivision it is */
  bare: NameMap;
}

/**
 * Words in ISO names (normalised) that say what kind of subdivision it is, where DB-IP writes the
 * name without them: "Beijing Shi", "Guangdong Sheng", "Guangxi Zhuangzu Zizhiqu",
 * "Seoul-teukbyeolsi", "Busan-gwangyeoksi", "Pardubický kraj", "Krasnoyarskiy kray", "Skåne län",
 * "Zagrebačka županija", "Aqmola oblysy", "Arkhangel'skaya oblast'", "City of Kigali". Only words
 * that were measured to find codes are here.
 */
const KIND_WORDS: ReadonlySet<string> = new Set([
  "sheng",
  "shi",
  "zizhiqu",
  "zhuangzu",
  "uygur",
  "huizu",
  "teukbyeolsi",
  "gwangyeoksi",
  "kraj",
  "kray",
  "lan",
  "zupanija",
  "oblysy",
  "oblast",
  "city",
  "of",
]);

/**
 * Lower case, without diacritics, apostrophes or punctuation, single spaces: "Île-de-France" and
 * "Ile de France", "Kharkivs’ka Oblast’" and "Kharkivska oblast" compare equal.
 */
export function normaliseSubdivisionName(name: string): string {
  return name
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/['’ʼ‘`´]/g, "")
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/**
 * The whole name first, then its parts: ISO writes some names inverted ("Madrid, Comunidad de",
 * "Bristol, City of"), in two languages ("Valle d'Aosta, Vallée d'Aoste", "Bolama / Bijagós") or
 * with a remark in brackets ("Puducherry (Pondicherry)", "Diekirch (de, lb)").
 */
function nameForms(name: string): string[] {
  const forms = [name];
  const withoutBrackets = name.replace(/\s*\([^)]*\)/g, "").trim();
  if (withoutBrackets !== name) forms.push(withoutBrackets);
  for (const match of name.matchAll(/\(([^)]*)\)/g)) forms.push(match[1]!);
  for (const part of withoutBrackets.split(/\s*[,/;]\s*/)) if (part !== withoutBrackets) forms.push(part);
  const comma = withoutBrackets.split(/\s*,\s*/);
  if (comma.length === 2) forms.push(`${comma[1]} ${comma[0]}`);
  return forms;
}

interface Candidates {
  /** lower is better: the whole name before a part of it */
  priority: number;
  codes: Set<string>;
}

/**
 * Builds the index, of the top-level subdivisions only: the contract's code is the first (largest)
 * subdivision's, and DB-IP names first-level ones. Where DB-IP's name is also the name of a nested
 * ISO entry, that entry is a smaller place of the same name: DB-IP's Spanish names are the
 * communities, so its "Valencia" is ES-VC, not the province ES-V; its Lithuanian names are the
 * counties, so "Vilnius" is LT-VL, not the city municipality LT-58. Matching nested entries as well
 * (after the top-level ones) would add 0.15% of those addresses, nearly all of it such wrong codes.
 *
 * Several names can give one key; a key keeps the entries of its best priority only (the whole
 * name before a part of it: "Madrid" is ES-MD by a part of "Madrid, Comunidad de"), and stands for
 * no code when those have different codes.
 */
export function buildSubdivisionIndex(entries: Iterable<SubdivisionEntry>): SubdivisionIndex {
  const names = new Map<string, Candidates>();
  const bare = new Map<string, Candidates>();
  const add = (keys: Map<string, Candidates>, key: string, priority: number, suffix: string) => {
    const found = keys.get(key);
    if (!found || priority < found.priority) keys.set(key, { priority, codes: new Set([suffix]) });
    else if (priority === found.priority) found.codes.add(suffix);
  };
  for (const entry of entries) {
    if (entry.code.indexOf("-") !== 2) continue;
    const country = entry.code.slice(0, 2).toUpperCase();
    const suffix = entry.code.slice(3);
    if (!suffix) continue;
    if (entry.parent.length !== 2) continue;
    nameForms(entry.name).forEach((form, i) => {
      const normalised = normaliseSubdivisionName(form);
      if (!normalised) return;
      const priority = i === 0 ? 0 : 1;
      add(names, `${country}\t${normalised}`, priority, suffix);
      const words = normalised.split(" ");
      const stripped = words.filter((word) => !KIND_WORDS.has(word)).join(" ");
      if (stripped && stripped !== normalised) add(bare, `${country}\t${stripped}`, priority, suffix);
      // Swedish counties are named in the genitive: "Stockholms län", "Västra Götalands län".
      if (country === "SE" && words.length > 1 && words.at(-1) === "lan" && words.at(-2)!.endsWith("s")) {
        add(bare, `${country}\t${stripped.slice(0, -1)}`, priority, suffix);
      }
    });
  }
  return { names: byCountry(names), bare: byCountry(bare) };
}

function byCountry(keys: Map<string, Candidates>): NameMap {
  const map: NameMap = new Map();
  for (const [key, { codes }] of keys) {
    const tab = key.indexOf("\t");
    const country = key.slice(0, tab);
    let names = map.get(country);
    if (!names) map.set(country, (names = new Map()));
    names.set(key.slice(tab + 1), codes.size === 1 ? codes.values().next().value! : null);
  }
  return map;
}

/**
 * The code suffix for a subdivision name in `index`, or null: by the ISO names, else by the ISO
 * names less their kind words ("Beijing" for "Beijing Shi"). A name that stands for two codes at
 * the first step gets none.
 */
export function codeIn(index: SubdivisionIndex, country: string, name: string): string | null {
  const upper = country.toUpperCase();
  const normalised = normaliseSubdivisionName(name);
  const whole = index.names.get(upper)?.get(normalised);
  if (whole !== undefined) return whole;
  return index.bare.get(upper)?.get(normalised) ?? null;
}

let isoIndex: SubdivisionIndex | null = null;
/** answers by country and name as given; the bundled data has about 3,900 pairs */
let answers = new Map<string, string | null>();
const MAX_ANSWERS = 20_000;

/**
 * The ISO 3166-2 code suffix (`ENG`) for a subdivision of `country` (`GB`) named `name`, or null.
 * The index is built on the first call (about 5,000 ISO entries).
 */
export function subdivisionCode(country: string, name: string): string | null {
  const key = `${country}\t${name}`;
  let code = answers.get(key);
  if (code === undefined) {
    isoIndex ??= buildSubdivisionIndex(iso31662);
    code = codeIn(isoIndex, country, name);
    if (answers.size >= MAX_ANSWERS) answers = new Map();
    answers.set(key, code);
  }
  return code;
}
