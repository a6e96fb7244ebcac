/**
 * The element that wraps a found address in page text. An unknown element is inline and unstyled,
 * so wrapping does not move anything; only a dotted underline (no box change) hints at it.
 * Marks are focusable but no tab stops (tabindex -1): roving-focus.ts gives the page one tab stop
 * for all its addresses. Inside a link or button the mark is not focusable at all: the link's own
 * focus shows the card.
 */
import type { IpMatch } from "../shared/find-ips.js";

export const MARK_TAG = "ipatlas-ip";

export function isMark(node: Node | null): node is HTMLElement {
  return node instanceof Element && node.localName === MARK_TAG;
}

export function createMark(doc: Document, text: string, match: IpMatch, focusable = true): HTMLElement {
  const mark = doc.createElement(MARK_TAG);
  mark.textContent = text;
  mark.dataset.ip = match.ip;
  mark.dataset.public = match.isPublic ? "1" : "0";
  if (match.prefix !== undefined) mark.dataset.prefix = String(match.prefix);
  if (focusable) {
    mark.tabIndex = -1;
    mark.setAttribute("role", "button");
    mark.setAttribute("aria-haspopup", "dialog");
  }
  if (!styled.has(doc)) mark.setAttribute("style", MARK_CSS);
  return mark;
}

const MARK_CSS = "text-decoration: underline dotted; text-underline-offset: 2px; cursor: help";
const styled = new WeakSet<Document>();

/**
 * One shared rule for every mark instead of a style attribute on each: 10,000 inline styles make
 * the page's style recalculation noticeably slower. A constructed sheet is not subject to the
 * page's CSP; where it cannot be adopted, createMark falls back to the attribute.
 */
export function styleMarks(doc: Document) {
  if (styled.has(doc)) return;
  try {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(`${MARK_TAG} { ${MARK_CSS} }`);
    doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, sheet];
    styled.add(doc);
  } catch {
    // old browser: inline styles
  }
}

export interface MarkedIp {
  ip: string;
  isPublic: boolean;
  /** prefix length of a CIDR block, whose `ip` is the network address */
  prefix?: number;
}

export function markIp(mark: HTMLElement): MarkedIp {
  const prefix = mark.dataset.prefix;
  return { ip: mark.dataset.ip ?? "", isPublic: mark.dataset.public === "1", ...(prefix ? { prefix: Number(prefix) } : {}) };
}

/** Elements that are tab stops of their own: a mark inside one must not add another. */
export const FOCUSABLE_ANCESTOR = "a[href], button, [tabindex], summary, label";
