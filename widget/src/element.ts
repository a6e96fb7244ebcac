/**
 * The `<ipatlas-widget>` custom element: reads its settings, asks the shared lookup, renders the
 * view into its shadow root and announces the outcome with `ipatlas:load` / `ipatlas:error`.
 * Nothing here may throw into the host page.
 */
import { h, render } from "preact";
import { signal } from "@preact/signals";
import type { ErrorEnvelope } from "../../lib/schemas/envelope.js";
import type { Lookup } from "./lookup.js";
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
}

// One warning per problem per page, however many widgets share it.
const warned = new Set<string>();
function warnOnce(error: ErrorEnvelope): void {
  const text = `[IP Atlas widget] ${error.message}${error.code ? ` (HTTP ${error.code})` : ""}`;
  if (warned.has(text)) return;
  warned.add(text);
  console.warn(text);
}

export function createWidgetElement(context: WidgetContext): CustomElementConstructor {
  return class IpAtlasWidget extends HTMLElement {
    static observedAttributes = [...SETTING_ATTRIBUTES];

    private readonly state = signal<WidgetState>({ status: "loading" });
    private readonly settings = signal<WidgetSettings>(this.read());
    private root: ShadowRoot | null = null;
    /** the (key, ip) the current state belongs to, so attribute changes only refetch when needed */
    private asked = "";

    connectedCallback(): void {
      try {
        if (!this.root) {
          this.root = this.attachShadow({ mode: "open" });
          adoptStyles(this.root);
          render(h(WidgetView, { state: this.state, settings: this.settings, pageLang: context.pageLang() }), this.root);
        }
        this.update();
      } catch (error) {
        console.warn("[IP Atlas widget]", error);
      }
    }

    attributeChangedCallback(): void {
      if (this.root) this.update();
    }

    private read(): WidgetSettings {
      return readSettings((name) => this.getAttribute(name), context.defaults);
    }

    private update(): void {
      const settings = (this.settings.value = this.read());
      const asking = `${settings.key}\n${settings.ip}`;
      if (asking === this.asked) return;
      this.asked = asking;
      this.state.value = { status: "loading" };

      const problem = keyProblem(settings.key);
      if (problem) return this.finish(asking, { ok: false, error: clientError(problem) });
      context.lookup(settings.key, settings.ip).then(
        (result) => this.finish(asking, result),
        () => this.finish(asking, { ok: false, error: clientError("Lookup failed") }),
      );
    }

    private finish(asking: string, result: Awaited<ReturnType<Lookup>>): void {
      if (asking !== this.asked) return; // settings changed while this was in flight
      if (result.ok) {
        this.state.value = { status: "ready", data: result.data, sources: result.sources };
        this.emit("ipatlas:load", result.data);
      } else {
        this.state.value = { status: "error", error: result.error };
        warnOnce(result.error);
        this.emit("ipatlas:error", result.error);
      }
    }

    private emit(type: string, detail: unknown): void {
      // A throwing listener on the host page must not break the widget (and vice versa).
      try {
        this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
      } catch {
        /* ignore */
      }
    }
  };
}
