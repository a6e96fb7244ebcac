/**
 * UI text through the browser's i18n API (`_locales/<lang>/messages.json` in extension/public),
 * so the extension speaks the browser's language. Outside an extension (unit tests) and for a
 * message the browser does not know, the English file answers, so a string is never empty.
 */
import english from "../public/_locales/en/messages.json";

interface MessageEntry {
  message: string;
  placeholders?: Record<string, { content: string }>;
}

type I18nApi = { getMessage(name: string, substitutions?: string | string[]): string; getUILanguage?(): string };

const api: I18nApi | undefined =
  (globalThis as { browser?: { i18n?: I18nApi } }).browser?.i18n ?? (globalThis as { chrome?: { i18n?: I18nApi } }).chrome?.i18n;

export type MessageKey = keyof typeof english;

/** The English text with `$NAME$` placeholders filled, as the browser would do it. */
function fromEnglish(key: MessageKey, subs: string[]): string {
  const entry = (english as Record<string, MessageEntry>)[key as string]!;
  return entry.message.replace(/\$(\w+)\$/g, (_all: string, name: string) => {
    const content = entry.placeholders?.[name.toLowerCase()]?.content ?? "";
    return content.replace(/\$(\d)/g, (_d, n: string) => subs[Number(n) - 1] ?? "");
  });
}

export function t(key: MessageKey, ...subs: Array<string | number>): string {
  const texts = subs.map(String);
  try {
    const text = api?.getMessage(key, texts);
    if (text) return text;
  } catch {
    // a context without i18n (an invalidated content script): English
  }
  return fromEnglish(key, texts);
}

/** The browser's UI language (`de`, `ja`, `en-US`), for number and date formats. */
export function uiLanguage(): string {
  try {
    return api?.getUILanguage?.() || navigator.language || "en";
  } catch {
    return "en";
  }
}
