/**
 * The widget's styles, adopted into its shadow root as a constructable stylesheet: no <style>
 * element and no style attribute, so a page CSP without 'unsafe-inline' still renders it.
 * Hosts theme it with --ipatlas-* custom properties and ::part(...).
 */
export const CSS = `
:host{display:inline-block;vertical-align:middle;box-sizing:border-box;max-width:100%;width:var(--ipatlas-width,auto);font:var(--ipatlas-font,13px/1.35 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif)}
:host([hidden]){display:none}
.box{--bg:var(--ipatlas-bg,#fff);--fg:var(--ipatlas-fg,#1b1f24);--muted:var(--ipatlas-muted,#59626e);--line:var(--ipatlas-border,#d5dae0);--skel:var(--ipatlas-skeleton,#e6e9ed);--warn:var(--ipatlas-warn,#9a5b00);position:relative;box-sizing:border-box;display:flex;align-items:flex-start;gap:.65em;width:100%;min-width:0;min-height:3.3em;padding:.55em .8em;background:var(--bg);color:var(--fg);border:1px solid var(--line);border-radius:var(--ipatlas-radius,10px);box-shadow:0 1px 2px rgba(0,0,0,.05)}
.dark{--bg:var(--ipatlas-bg,#1d2127);--fg:var(--ipatlas-fg,#eef1f4);--muted:var(--ipatlas-muted,#a3acb8);--line:var(--ipatlas-border,#3a414b);--skel:var(--ipatlas-skeleton,#2e343c);--warn:var(--ipatlas-warn,#f0b45a)}
@media (prefers-color-scheme:dark){.auto{--bg:var(--ipatlas-bg,#1d2127);--fg:var(--ipatlas-fg,#eef1f4);--muted:var(--ipatlas-muted,#a3acb8);--line:var(--ipatlas-border,#3a414b);--skel:var(--ipatlas-skeleton,#2e343c);--warn:var(--ipatlas-warn,#f0b45a)}}
.flag{flex:none;width:1.6em;height:1.2em;margin-top:.1em;object-fit:cover;border-radius:2px;box-shadow:0 0 0 1px var(--line)}
.emoji{box-shadow:none;font-size:1.15em;line-height:1;text-align:center}
.text{display:block;min-width:0;flex:1}
.line{display:block;font-weight:600;overflow-wrap:anywhere}
[data-status=error] .line{color:var(--warn)}
.more,.sub{display:block}
.sub{color:var(--muted);font-size:.92em;overflow-wrap:anywhere}
.credit{display:block;text-align:right;font-size:.68em;line-height:1.2;color:var(--muted)}
.credit a{color:inherit;text-decoration:none}
.credit a:hover,.credit a:focus-visible{text-decoration:underline}
.badge{align-items:center;gap:.45em;min-height:0;padding:.25em .75em;border-radius:var(--ipatlas-radius,999px)}
.badge .flag{width:1.35em;height:1em;margin:0}
.badge .line{font-weight:500}
.badge .more{display:none;position:absolute;z-index:2147483647;top:calc(100% + 4px);left:0;width:max-content;max-width:min(22em,90vw);padding:.5em .7em;background:var(--bg);border:1px solid var(--line);border-radius:8px;box-shadow:0 4px 14px rgba(0,0,0,.14)}
.badge:hover .more,.badge:focus .more,.badge:focus-within .more{display:block}
.badge:focus-visible{outline:2px solid var(--fg);outline-offset:2px}
.skel{display:block;height:.8em;margin:.3em 0;border-radius:3px;background:var(--skel);animation:pulse 1.2s ease-in-out infinite alternate}
.skel.flag{margin:.1em 0 0;box-shadow:none}
.text .skel{width:11em;max-width:100%}
.text .short{width:7em}
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
