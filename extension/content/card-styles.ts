/** The hover card's CSS, inside its shadow root so the page cannot restyle it; dark mode follows the system. */
export const CARD_CSS = `
:host { all: initial; }
.card {
  --bg: #ffffff; --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --accent: #0969da; --warn: #9a6700;
  box-sizing: border-box; min-width: 220px; max-width: 340px; padding: 10px 12px;
  background: var(--bg); color: var(--fg); border: 1px solid var(--line); border-radius: 8px;
  box-shadow: 0 6px 24px rgba(0,0,0,.18);
  font: 13px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; text-align: left;
}
@media (prefers-color-scheme: dark) {
  .card { --bg: #161b22; --fg: #e6edf3; --muted: #9198a1; --line: #3d444d; --accent: #4493f8; --warn: #d29922; }
}
.head { display: flex; align-items: center; gap: 8px; margin-bottom: 6px; }
.flag { font-size: 20px; line-height: 1; }
img.flag { width: 24px; height: 18px; border-radius: 2px; box-shadow: 0 0 0 1px var(--line); }
.ip { font: 600 13px/1.3 ui-monospace, SFMono-Regular, Menlo, monospace; word-break: break-all; flex: 1; }
button {
  font: inherit; font-size: 12px; padding: 2px 8px; border-radius: 6px; cursor: pointer;
  color: var(--accent); background: transparent; border: 1px solid var(--line);
}
button:focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; }
dl { display: grid; grid-template-columns: auto 1fr; gap: 2px 10px; margin: 0; }
dt { color: var(--muted); }
dd { margin: 0; }
.note { margin: 0; color: var(--muted); }
.links { margin: 8px 0 0; display: flex; flex-wrap: wrap; gap: 4px 12px; font-size: 12px; }
a { color: var(--accent); }
a:focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; }
.error { margin: 0; color: var(--warn); }
`;
