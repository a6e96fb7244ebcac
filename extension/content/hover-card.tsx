/**
 * Shows the card for an address the user shows interest in: pointer resting on it for a moment
 * (a pointer passing over costs no lookup), keyboard focus on it, or the context menu / shortcut
 * on a selection. One host element with an open shadow root (reachable by assistive tools and
 * tests, unstyled by the page), positioned next to the address. Enter on a focused address moves
 * into the card's controls; Escape closes the card and returns focus.
 */
import { render } from "preact";
import { cardState, type CardState } from "./card-state.js";
import { CARD_CSS } from "./card-styles.js";
import { HoverCard } from "./hover-card-view.js";
import type { ContentLookups } from "./lookups.js";
import { markIp, MARK_TAG, type MarkedIp } from "./marks.js";

export const CARD_HOST_TAG = "ipatlas-card";
const CARD_ID = "ipatlas-card";
/** how long the pointer rests on an address before it counts as interest */
export const HOVER_INTENT_MS = 150;
const HIDE_DELAY_MS = 300;
const GAP = 6;

function CardRoot() {
  const state = cardState.value;
  return state ? <HoverCard state={state} id={CARD_ID} /> : null;
}

export interface HoverCardController {
  /** shows the card for an address that is not (or not only) a mark: a selection, a link */
  showAt(target: MarkedIp, rect: DOMRect, focusCard: boolean): void;
  destroy(): void;
}

interface Shown {
  target: MarkedIp;
  mark: HTMLElement | null;
  rect: DOMRect | null;
}

export function installHoverCard(doc: Document, lookups: ContentLookups): HoverCardController {
  const host = doc.createElement(CARD_HOST_TAG);
  host.setAttribute("style", "position: fixed; z-index: 2147483647; top: 0; left: 0; display: none");
  const shadow = host.attachShadow({ mode: "open" });
  const style = doc.createElement("style");
  style.textContent = CARD_CSS;
  const mount = doc.createElement("div");
  shadow.append(style, mount);
  doc.documentElement.append(host);
  render(<CardRoot />, mount);

  let current: Shown | null = null;
  let hideTimer: ReturnType<typeof setTimeout> | undefined;
  let intentTimer: ReturnType<typeof setTimeout> | undefined;
  /** focus going back to the address after Escape: not a request to reopen */
  let returningFocus = false;

  /** Places now, and again once the view has re-rendered with the new content (its size changed). */
  function place() {
    placeNow();
    const shown = current;
    requestAnimationFrame(() => current === shown && placeNow());
  }

  function placeNow() {
    if (!current) return;
    const rect = current.mark?.getBoundingClientRect() ?? current.rect!;
    const view = doc.documentElement;
    host.style.display = "block";
    const card = host.getBoundingClientRect();
    const below = rect.bottom + GAP + card.height <= view.clientHeight;
    const top = below ? rect.bottom + GAP : Math.max(GAP, rect.top - GAP - card.height);
    const left = Math.min(Math.max(GAP, rect.left), Math.max(GAP, view.clientWidth - card.width - GAP));
    host.style.top = `${Math.round(top)}px`;
    host.style.left = `${Math.round(left)}px`;
  }

  function stateFor({ ip, isPublic, prefix }: MarkedIp): CardState {
    const base = prefix === undefined ? { ip } : { ip, prefix };
    if (!isPublic) return { status: "private", ...base };
    const known = lookups.known(ip);
    if (!known) return { status: "loading", ...base };
    return "data" in known ? { status: "ready", data: known.data, ...base } : { status: "error", error: known.error, ...base };
  }

  function show(target: MarkedIp, mark: HTMLElement | null, rect: DOMRect | null) {
    clearTimeout(hideTimer);
    clearTimeout(intentTimer);
    if (current?.mark && current.mark !== mark) current.mark.removeAttribute("aria-expanded");
    const shown: Shown = { target, mark, rect };
    current = shown;
    mark?.setAttribute("aria-expanded", "true");
    cardState.value = stateFor(target);
    place();
    if (cardState.value.status === "loading" || cardState.value.status === "error") {
      void lookups.request([target.ip]).then(() => {
        if (current !== shown) return;
        cardState.value = stateFor(target);
        place();
      });
    }
  }

  function showMark(mark: HTMLElement) {
    if (current?.mark === mark) {
      clearTimeout(hideTimer);
      return;
    }
    show(markIp(mark), mark, null);
  }

  function hideSoon() {
    clearTimeout(intentTimer);
    clearTimeout(hideTimer);
    hideTimer = setTimeout(hide, HIDE_DELAY_MS);
  }

  function hide() {
    clearTimeout(intentTimer);
    current?.mark?.removeAttribute("aria-expanded");
    current = null;
    cardState.value = null;
    host.style.display = "none";
  }

  /** The first of the card's controls (Copy). */
  function focusCard() {
    requestAnimationFrame(() => shadow.querySelector<HTMLElement>("button, a")?.focus());
  }

  const markOf = (target: EventTarget | null) =>
    target instanceof Element ? (target.closest(MARK_TAG) as HTMLElement | null) : null;
  /** A focused link or button with an address in it stands for that address. */
  const focusedMarkOf = (target: EventTarget | null) =>
    markOf(target) ?? (target instanceof Element && target !== host ? (target.querySelector(MARK_TAG) as HTMLElement | null) : null);

  const onOver = (event: Event) => {
    const mark = markOf(event.target);
    if (mark) {
      clearTimeout(intentTimer);
      if (current) showMark(mark); // the card is already open: follow the pointer at once
      else intentTimer = setTimeout(() => mark.isConnected && showMark(mark), HOVER_INTENT_MS);
    }
    // The hovered mark may have been removed by the page (no mouseout then): anywhere else hides.
    else if (current?.mark && event.target !== host && !current.mark.isConnected) hideSoon();
  };
  const onOut = (event: MouseEvent) => {
    if (markOf(event.target) && event.relatedTarget !== host) hideSoon();
  };
  const onFocusIn = (event: FocusEvent) => {
    if (event.target === host) return clearTimeout(hideTimer);
    if (returningFocus) return;
    const mark = focusedMarkOf(event.target);
    if (mark) showMark(mark);
    else if (current) hide();
  };
  const onFocusOut = (event: FocusEvent) => {
    // Focus moving between the address and its card keeps the card.
    if (event.relatedTarget === host || (current?.mark && event.relatedTarget === current.mark)) return;
    if (event.target === host || focusedMarkOf(event.target)) hideSoon();
  };
  const onKey = (event: KeyboardEvent) => {
    if (!current) return;
    if (event.key === "Escape") {
      const inCard = doc.activeElement === host;
      const back = current.mark;
      hide();
      if (inCard && back) {
        returningFocus = true;
        back.focus();
        returningFocus = false;
      }
      event.stopPropagation();
    } else if ((event.key === "Enter" || event.key === " ") && event.target === current.mark) {
      event.preventDefault();
      focusCard();
    }
  };

  host.id = CARD_HOST_TAG;
  host.addEventListener("mouseenter", () => clearTimeout(hideTimer));
  host.addEventListener("mouseleave", () => doc.activeElement !== host && hideSoon());
  doc.addEventListener("mouseover", onOver, true);
  doc.addEventListener("mouseout", onOut, true);
  doc.addEventListener("focusin", onFocusIn, true);
  doc.addEventListener("focusout", onFocusOut, true);
  doc.addEventListener("keydown", onKey, true);
  const onScroll = () => current && place();
  doc.addEventListener("scroll", onScroll, { capture: true, passive: true });
  return {
    showAt(target, rect, focus) {
      show(target, null, rect);
      if (focus) focusCard();
    },
    destroy() {
      hide();
      doc.removeEventListener("mouseover", onOver, true);
      doc.removeEventListener("mouseout", onOut, true);
      doc.removeEventListener("focusin", onFocusIn, true);
      doc.removeEventListener("focusout", onFocusOut, true);
      doc.removeEventListener("keydown", onKey, true);
      doc.removeEventListener("scroll", onScroll, true);
      render(null, mount);
      host.remove();
    },
  };
}
