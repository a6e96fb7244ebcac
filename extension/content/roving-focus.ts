/**
 * One tab stop for all the addresses of a page (a roving tabindex): Tab reaches the address last
 * visited (at first the first one found), the arrow keys move to the previous or next address,
 * Home and End to the first and last. A log of 3,000 addresses thus costs keyboard users one Tab,
 * not 3,000. Marks inside links are not part of it: the link is the tab stop there.
 */
import { isMark, MARK_TAG } from "./marks.js";

export interface RovingFocus {
  /** new marks from the scanner, in page order */
  adopt(marks: readonly HTMLElement[]): void;
  destroy(): void;
}

const NEXT = new Set(["ArrowRight", "ArrowDown"]);
const PREVIOUS = new Set(["ArrowLeft", "ArrowUp"]);

export function installRovingFocus(doc: Document): RovingFocus {
  let stop: HTMLElement | null = null;

  function makeStop(mark: HTMLElement) {
    if (stop && stop !== mark) stop.tabIndex = -1;
    stop = mark;
    mark.tabIndex = 0;
  }

  function onKey(event: KeyboardEvent) {
    const mark = event.target;
    if (!isMark(mark as Node) || event.altKey || event.ctrlKey || event.metaKey) return;
    const forward = NEXT.has(event.key) || event.key === "End";
    if (!forward && !PREVIOUS.has(event.key) && event.key !== "Home") return;
    const all = [...doc.querySelectorAll<HTMLElement>(`${MARK_TAG}[tabindex]`)];
    const at = all.indexOf(mark as HTMLElement);
    const target =
      event.key === "Home" ? all[0] : event.key === "End" ? all.at(-1) : all[at + (forward ? 1 : -1)];
    event.preventDefault(); // arrows would scroll the page instead
    if (!target) return;
    makeStop(target);
    target.focus();
  }

  function onFocus(event: FocusEvent) {
    const mark = event.target as Node;
    if (isMark(mark) && mark.hasAttribute("tabindex")) makeStop(mark);
  }

  doc.addEventListener("keydown", onKey, true);
  doc.addEventListener("focusin", onFocus, true);
  return {
    adopt(marks) {
      if (stop?.isConnected) return;
      const first = marks.find((mark) => mark.hasAttribute("tabindex"));
      if (first) makeStop(first);
    },
    destroy() {
      doc.removeEventListener("keydown", onKey, true);
      doc.removeEventListener("focusin", onFocus, true);
    },
  };
}
