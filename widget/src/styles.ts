/**
 * The widget's styles, adopted into its shadow root as a constructable stylesheet: no <style>
 * element and no style attribute, so a page CSP without 'unsafe-inline' still renders it.
 * Hosts theme it with --ipatlas-* custom properties and ::part(...).
 */
export const CSS = `
:host{display:inline-block;vertical-align:middle;box-sizing:border-box;width:var(--ipatlas-width,20em);height:var(--ipatlas-height,3.5em);contain:layout paint style;font:var(--ipatlas-font,13px/1.3 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif)}
:host([hidden]){display:none}
.box{--bg:var(--ipatlas-bg,#fff);--fg:var(--ipatlas-fg,#1b1f24);--muted:var(--ipatlas-muted,#5b6470);--line:var(--ipatlas-border,#d5dae0);--skel:var(--ipatlas-skeleton,#e6e9ed);box-sizing:border-box;display:flex;align-items:center;gap:.6em;width:100%;height:100%;padding:.4em .7em;overflow:hidden;background:var(--bg);color:var(--fg);border:1px solid var(--line);border-radius:var(--ipatlas-radius,8px)}
.dark{--bg:var(--ipatlas-bg,#1d2127);--fg:var(--ipatlas-fg,#eef1f4);--muted:var(--ipatlas-muted,#a3acb8);--line:var(--ipatlas-border,#3a414b);--skel:var(--ipatlas-skeleton,#2e343c)}
@media (prefers-color-scheme:dark){.auto{--bg:var(--ipatlas-bg,#1d2127);--fg:var(--ipatlas-fg,#eef1f4);--muted:var(--ipatlas-muted,#a3acb8);--line:var(--ipatlas-border,#3a414b);--skel:var(--ipatlas-skeleton,#2e343c)}}
.flag{flex:none;width:1.6em;height:1.2em;object-fit:cover;border-radius:2px;box-shadow:0 0 0 1px var(--line)}
.emoji{flex:none;width:1.6em;font-size:1.2em;text-align:center}
.text{min-width:0;flex:1}
.line,.sub{display:block;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.line{font-weight:600}
.sub,.error{color:var(--muted)}
.sub{font-size:.9em}
.error{font-weight:400}
.row{display:flex;align-items:baseline;gap:.5em}
.row .sub{flex:1;min-width:0}
.attribution{flex:none;font-size:.7em;color:var(--muted);opacity:.85}
.attribution a{color:inherit;text-decoration:none}
.attribution a:hover,.attribution a:focus-visible{text-decoration:underline}
.skel{display:block;height:.8em;margin:.25em 0;border-radius:3px;background:var(--skel);animation:pulse 1.2s ease-in-out infinite alternate}
.skel.flag{margin:0;box-shadow:none}
.short{width:55%}
@keyframes pulse{to{opacity:.45}}
@media (prefers-reduced-motion:reduce){.skel{animation:none}}
`;

let shared: CSSStyleSheet | null = null;

export function adoptStyles(root: ShadowRoot): void {
  if ("adoptedStyleSheets" in root && typeof CSSStyleSheet === "function" && "replaceSync" in CSSStyleSheet.prototype) {
    // One sheet object for every widget on the page.
    if (!shared) {
      shared = new CSSStyleSheet();
      shared.replaceSync(CSS);
    }
    root.adoptedStyleSheets = [shared];
    return;
  }
  // Browsers without constructable stylesheets (Safari < 16.4): a <style> element, which a
  // strict CSP blocks; the widget then shows unstyled but still readable.
  const style = document.createElement("style");
  style.textContent = CSS;
  root.appendChild(style);
}
