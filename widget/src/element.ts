/**
 * The `<ipatlas-widget>` custom element: reads its settings, asks the shared lookup, renders the
 * view into its shadow root and announces the outcome with `ipatlas:load` / `ipatlas:error`.
 * Nothing here may throw into the host page.
 */
import { h, render } from "preact";
import type { ErrorEnvelope } from "../../lib/schemas/envelope.js";
import type { Lookup } from "./lookup.js";
import { explainError, explainSetup, explainUnlocated } from "./explain.js";
import { clientError } from "./result.js";
import { adoptStyles } from "./styles.js";
import { keyProblem, readSettings, SETTING_ATTRIBUTES, type AttributeSource, type WidgetSettings } from "./settings.js";
import { WidgetView, type WidgetState } from "./view.js";

export const TAG = "ipatlas-widget";

export interface WidgetContext {
  lookup: Lookup;
  /** the embedding script's `data-*` settings */
  defaults: AttributeSource;
  pageLang: () => string;
  /** the server the lookups go to, named when it cannot be reached */
  server: string;
}

// One warning per problem per page, however many widgets share it.
const warned = new Set<string>();
function warnOnce(text: string): void {
  if (warned.has(text)) return;
  warned.add(text);
  console.warn(`[IP Atlas widget] ${text}`);
}

export function createWidgetElement(context: WidgetContext): CustomElementConstructor {
  return class IpAtlasWidget extends HTMLElement {
    static observedAttributes = [...SETTING_ATTRIBUTES];

    private state: WidgetState = { status: "loading" };
    private settings: WidgetSettings = this.read();
    private root: ShadowRoot | null = null;
    /** the (key, ip) the current state belongs to, so attribute changes only refetch when needed */
    private asked = "";
    /** keeps the local time current while the widget is on the page */
    private clock = 0;

    connectedCallback(): void {
      try {
        if (!this.root) {
          this.root = this.attachShadow({ mode: "open" });
          adoptStyles(this.root);
        }
        this.clock = window.setInterval(() => this.settings.fields.includes("time") && this.paint(), 30_000);
        this.update();
      } catch (error) {
        console.warn("[IP Atlas widget]", error);
      }
    }

    disconnectedCallback(): void {
      clearInterval(this.clock);
    }

    attributeChangedCallback(): void {
      if (this.root) this.update();
    }

    private read(): WidgetSettings {
      return readSettings((name) => this.getAttribute(name), context.defaults);
    }

    private paint(): void {
      if (this.root) render(h(WidgetView, { state: this.state, settings: this.settings, pageLang: context.pageLang(), now: new Date() }), this.root);
    }

    private update(): void {
      const settings = (this.settings = this.read());
      const asking = `${settings.key}\n${settings.ip}`;
      if (asking === this.asked) return this.paint();
      this.asked = asking;
      this.state = { status: "loading" };
      this.paint();

      const problem = keyProblem(settings.key);
      if (problem) return this.show(asking, { status: "empty", why: explainSetup(problem) }, "ipatlas:error", clientError(problem), problem);
      context.lookup(settings.key, settings.ip).then(
        (result) => {
          if (result.ok) {
            const located = !!result.data.continent?.country;
            const state: WidgetState = located
              ? { status: "ready", data: result.data, sources: result.sources }
              : { status: "empty", why: explainUnlocated(result.data.ip) };
            return this.show(asking, state, "ipatlas:load", result.data);
          }
          this.fail(asking, result.error);
        },
        () => this.fail(asking, null),
      );
    }

    private fail(asking: string, error: ErrorEnvelope | null): void {
      const envelope = error ?? clientError("Lookup failed");
      const why = explainError(envelope, { online: navigator.onLine !== false, pageOrigin: location.origin, server: context.server });
      this.show(asking, { status: "empty", why }, "ipatlas:error", envelope, `${why.title}: ${why.detail}`);
    }

    private show(asking: string, state: WidgetState, event: string, detail: unknown, warning?: string): void {
      if (asking !== this.asked) return; // settings changed while this was in flight
      this.state = state;
      this.paint();
      if (warning) warnOnce(warning);
      // A throwing listener on the host page must not break the widget (and vice versa).
      try {
        this.dispatchEvent(new CustomEvent(event, { detail, bubbles: true, composed: true }));
      } catch {
        /* ignore */
      }
    }
  };
}
