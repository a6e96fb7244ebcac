/**
 * Finds addresses in the page's text and wraps them, in idle-time chunks of a few milliseconds so
 * a 10,000-address log never blocks the main thread; new content is picked up by a
 * MutationObserver, which queues only the added nodes (no rescans of the page).
 */
import { findIps, MAY_CONTAIN_IP } from "../shared/find-ips.js";
import { createMark, FOCUSABLE_ANCESTOR, isMark, MARK_TAG, styleMarks } from "./marks.js";

/** Where addresses are left alone: form fields, code editors, editable regions, non-text. */
export const SKIP_SELECTOR = [
  "script", "style", "noscript", "template", "textarea", "input", "select", "option", "button",
  "svg", "math", "iframe", "object", "head", "title", MARK_TAG, "ipatlas-card",
  "[contenteditable]:not([contenteditable='false'])", "[role='textbox']",
  ".CodeMirror", ".cm-editor", ".monaco-editor", ".ace_editor",
].join(",");

export interface IdleDeadlineLike {
  timeRemaining(): number;
  didTimeout: boolean;
}

export interface ScannerOptions {
  root: HTMLElement;
  /** called after each chunk with the marks it created */
  onMarks(marks: HTMLElement[]): void;
  /** longest slice of work per idle callback; default 8 ms (the layout it causes comes on top) */
  budgetMs?: number;
  /** addresses wrapped per step of one text node; default 100 */
  sliceSize?: number;
  requestIdle?: (run: (deadline: IdleDeadlineLike) => void) => void;
  now?: () => number;
}

export interface Scanner {
  start(): void;
  stop(): void;
  /** resolves once the queue is empty (tests, benchmarks) */
  idle(): Promise<void>;
}

const defaultRequestIdle = (run: (deadline: IdleDeadlineLike) => void) => {
  if (typeof requestIdleCallback === "function") requestIdleCallback(run, { timeout: 300 });
  else setTimeout(() => run({ timeRemaining: () => 8, didTimeout: true }), 16);
};

function isSkipped(element: Element | null): boolean {
  if (!element) return true;
  return element.closest(SKIP_SELECTOR) !== null || (element as HTMLElement).isContentEditable === true;
}

export function createScanner(options: ScannerOptions): Scanner {
  const { root, onMarks, budgetMs = 8, sliceSize = 100, requestIdle = defaultRequestIdle } = options;
  const now = options.now ?? (() => performance.now());
  const doc = root.ownerDocument;
  /** subtrees still to scan, in page order of arrival */
  const queue: Node[] = [];
  let walker: TreeWalker | null = null;
  /** a text node whose replacement is being built across steps */
  let building: { text: Text; data: string; fragment: DocumentFragment; at: number; marks: HTMLElement[]; focusable: boolean } | null = null;
  let scheduled = false;
  let running = false;
  let waiters: Array<() => void> = [];

  const filter = {
    acceptNode(node: Node): number {
      if (node.nodeType === Node.TEXT_NODE) {
        const text = (node as Text).data;
        return text.length >= 3 && MAY_CONTAIN_IP.test(text) ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_SKIP;
      }
      const element = node as Element;
      return element.matches(SKIP_SELECTOR) || (element as HTMLElement).isContentEditable
        ? NodeFilter.FILTER_REJECT
        : NodeFilter.FILTER_SKIP;
    },
  };

  function enqueue(node: Node) {
    if (node.nodeType !== Node.TEXT_NODE && node.nodeType !== Node.ELEMENT_NODE) return;
    if (isMark(node)) return;
    queue.push(node);
    schedule();
  }

  const observer = new MutationObserver((records) => handle(records));

  function handle(records: MutationRecord[]) {
    for (const record of records) {
      if (record.type === "characterData") enqueue(record.target);
      else record.addedNodes.forEach(enqueue);
    }
  }

  function schedule() {
    if (scheduled || !running) return;
    scheduled = true;
    requestIdle(work);
  }

  /** Next text node to look at, or null when the queue is done. */
  function nextText(): Text | null {
    if (building) return building.text;
    for (;;) {
      const next = walker?.nextNode();
      if (next) return next as Text;
      walker = null;
      const subtree = queue.shift();
      if (!subtree) return null;
      if (!subtree.isConnected || isSkipped(subtree.nodeType === Node.TEXT_NODE ? subtree.parentElement : (subtree as Element).parentElement)) continue;
      if (subtree.nodeType === Node.TEXT_NODE) {
        walker = null;
        if (filter.acceptNode(subtree) === NodeFilter.FILTER_ACCEPT) return subtree as Text;
        continue;
      }
      if (filter.acceptNode(subtree) === NodeFilter.FILTER_REJECT) continue;
      walker = doc.createTreeWalker(subtree, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, filter);
    }
  }

  /**
   * Wraps the addresses of one text node. The replacement is built off the page, sliceSize
   * addresses per step, and swapped in once complete: a huge node (a 10,000-line <pre>) costs the
   * page one relayout instead of one per slice. Returns false while the node needs more steps.
   */
  function wrap(text: Text, marks: HTMLElement[]): boolean {
    if (!building || building.text !== text) {
      if (!text.isConnected || isMark(text.parentElement)) return true;
      const focusable = !(text.parentElement as Element | null)?.closest(FOCUSABLE_ANCESTOR);
      building = { text, data: text.data, fragment: doc.createDocumentFragment(), at: 0, marks: [], focusable };
    }
    const job = building;
    const found = findIps(job.data, sliceSize, job.at);
    for (const match of found) {
      if (match.start > job.at) job.fragment.append(job.data.slice(job.at, match.start));
      const mark = createMark(doc, job.data.slice(match.start, match.end), match, job.focusable);
      job.fragment.append(mark);
      job.marks.push(mark);
      job.at = match.end;
    }
    if (found.length === sliceSize) return false;
    building = null;
    if (job.marks.length === 0) return true;
    if (job.at < job.data.length) job.fragment.append(job.data.slice(job.at));
    // The page changed the node meanwhile: the MutationObserver has queued it again.
    if (!text.isConnected || text.data !== job.data) return true;
    const last = job.fragment.lastChild!;
    text.replaceWith(job.fragment);
    // The walker stood on the replaced node, now detached: move it onto the last new node so it
    // carries on with the page after it (a mark is rejected by the filter, its text is skipped).
    if (walker) walker.currentNode = last;
    marks.push(...job.marks);
    return true;
  }

  function work(deadline: IdleDeadlineLike) {
    scheduled = false;
    if (!running) return;
    // Page changes that arrived before this chunk count; the chunk's own wrapping does not.
    handle(observer.takeRecords());
    const stopAt = now() + Math.min(budgetMs, deadline.didTimeout ? budgetMs : Math.max(1, deadline.timeRemaining()));
    const marks: HTMLElement[] = [];
    let text: Text | null = null;
    while (now() < stopAt && (text = nextText())) wrap(text, marks);
    observer.takeRecords();
    if (marks.length > 0) onMarks(marks);
    if (building || walker || queue.length > 0) schedule();
    else if (text === null) {
      const done = waiters;
      waiters = [];
      done.forEach((resolve) => resolve());
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      styleMarks(doc);
      observer.observe(root, { childList: true, subtree: true, characterData: true });
      enqueue(root);
    },
    stop() {
      running = false;
      observer.disconnect();
      queue.length = 0;
      walker = null;
      building = null;
    },
    idle() {
      if (!running || (!building && !walker && queue.length === 0 && !scheduled)) return Promise.resolve();
      return new Promise((resolve) => waiters.push(resolve));
    },
  };
}
