/**
 * Shows the card when a mark is hovered or focused: one host element with an open shadow root
 * (reachable by assistive tools and tests, unstyled by the page), positioned next to the mark.
 * Leaving the mark hides it after a moment, so the pointer can reach the Copy button.
 */
import { render } from "preact";
import { cardState, type CardState } from "./card-state.js";
import { CARD_CSS } from "./card-styles.js";
import { HoverCard } from "./hover-card-view.js";
import type { ContentLookups } from "./lookups.js";
import { markIp, MARK_TAG } from "./marks.js";

export const CARD_HOST_TAG = "ipatlas-card";
const CARD_ID = "ipatlas-card";
const HIDE_DELAY_MS = 300;
const GAP = 6;

function CardRoot() {
  const state = cardState.value;
  return state ? <HoverCard state={state} id={CARD_ID} /> : null;
}

export interface HoverCardController {
  destroy(): void;
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

  let current: HTMLElement | null = null;
  let hideTimer: ReturnType<typeof setTimeout> | undefined;

  /** Places now, and again once the view has re-rendered with the new content (its size changed). */
  function place(mark: HTMLElement) {
    placeNow(mark);
    requestAnimationFrame(() => current === mark && placeNow(mark));
  }

  function placeNow(mark: HTMLElement) {
    const rect = mark.getBoundingClientRect();
    const view = doc.documentElement;
    host.style.display = "block";
    const card = host.getBoundingClientRect();
    const below = rect.bottom + GAP + card.height <= view.clientHeight;
    const top = below ? rect.bottom + GAP : Math.max(GAP, rect.top - GAP - card.height);
    const left = Math.min(Math.max(GAP, rect.left), Math.max(GAP, view.clientWidth - card.width - GAP));
    host.style.top = `${Math.round(top)}px`;
    host.style.left = `${Math.round(left)}px`;
  }

  function stateFor(ip: string, isPublic: boolean): CardState {
    if (!isPublic) return { status: "private", ip };
    const known = lookups.known(ip);
    if (!known) return { status: "loading", ip };
    return "data" in known ? { status: "ready", ip, data: known.data } : { status: "error", ip, error: known.error };
  }

  function show(mark: HTMLElement) {
    clearTimeout(hideTimer);
    if (current !== mark) current?.removeAttribute("aria-describedby");
    current = mark;
    mark.setAttribute("aria-describedby", CARD_HOST_TAG);
    const { ip, isPublic } = markIp(mark);
    cardState.value = stateFor(ip, isPublic);
    place(mark);
    if (cardState.value.status === "loading" || cardState.value.status === "error") {
      lookups.request([ip]).then(() => {
        if (current === mark) {
          cardState.value = stateFor(ip, isPublic);
          place(mark);
        }
      });
    }
  }

  function hideSoon() {
    clearTimeout(hideTimer);
    hideTimer = setTimeout(hide, HIDE_DELAY_MS);
  }

  function hide() {
    current?.removeAttribute("aria-describedby");
    current = null;
    cardState.value = null;
    host.style.display = "none";
  }

  const markOf = (target: EventTarget | null) =>
    target instanceof Element ? (target.closest(MARK_TAG) as HTMLElement | null) : null;
  const onOver = (event: Event) => {
    const mark = markOf(event.target);
    if (mark) show(mark);
    // The hovered mark may have been removed by the page (no mouseout then): anywhere else hides.
    else if (current && event.target !== host && !current.isConnected) hideSoon();
  };
  const onOut = (event: Event) => {
    if (markOf(event.target)) hideSoon();
  };
  const onKey = (event: KeyboardEvent) => {
    if (event.key === "Escape" && current) hide();
  };
  const onScroll = () => current && place(current);
  host.id = CARD_HOST_TAG;
  host.addEventListener("mouseenter", () => clearTimeout(hideTimer));
  host.addEventListener("mouseleave", hideSoon);
  doc.addEventListener("mouseover", onOver, true);
  doc.addEventListener("mouseout", onOut, true);
  doc.addEventListener("focusin", onOver, true);
  doc.addEventListener("focusout", onOut, true);
  doc.addEventListener("keydown", onKey, true);
  doc.addEventListener("scroll", onScroll, { capture: true, passive: true });

  return {
    destroy() {
      hide();
      doc.removeEventListener("mouseover", onOver, true);
      doc.removeEventListener("mouseout", onOut, true);
      doc.removeEventListener("focusin", onOver, true);
      doc.removeEventListener("focusout", onOut, true);
      doc.removeEventListener("keydown", onKey, true);
      doc.removeEventListener("scroll", onScroll, true);
      render(null, mount);
      host.remove();
    },
  };
}
