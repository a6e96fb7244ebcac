/**
 * Local pages for the extension's end-to-end test and benchmark, served over loopback HTTP (a
 * content script does not run on file: or data: pages by default).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface PageServer {
  url: string;
  close(): Promise<void>;
}

/** `host` "::1" serves the pages over IPv6 loopback. */
export async function servePages(pages: Record<string, string>, host = "127.0.0.1"): Promise<PageServer> {
  const server = createServer((req, res) => {
    const page = pages[new URL(req.url ?? "/", "http://x").pathname];
    res.writeHead(page ? 200 : 404, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
    res.end(page ?? "not found");
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections(); // the browser's keep-alive connections would hold it open
      }),
  };
}

/**
 * A loopback proxy in front of a server that counts the API requests passing through: how the
 * tests see that the extension stops asking after a 429.
 */
export async function countingProxy(target: string): Promise<PageServer & { count(): number }> {
  let count = 0;
  const server = createServer(async (req, res) => {
    if (req.url?.startsWith("/convert")) count++;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === "string" && name !== "host" && name !== "connection") headers.set(name, value);
    }
    const upstream = await fetch(target + req.url, {
      method: req.method,
      headers,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    res.writeHead(upstream.status, Object.fromEntries(upstream.headers));
    res.end(Buffer.from(await upstream.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    count: () => count,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Public IPv4 and IPv6, private and reserved ones, and places where addresses must be left alone. */
export const DEMO_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Abuse report</title>
<style>body{font:16px/1.5 sans-serif;margin:24px;max-width:760px} pre{background:#f3f3f3;padding:8px}</style></head>
<body>
<h1>Abuse report #4711</h1>
<p id="v4">Scans came from 8.8.8.8 and from <b>1.1.1.1</b> last night.</p>
<p id="v6">The IPv6 peer was 2001:4860:4860::8888, mapped form ::ffff:9.9.9.9.</p>
<p id="private">Internal hosts: 192.168.1.10 and fd00::1 (documentation: 203.0.113.9).</p>
<pre id="log">2026-11-22T03:04:05Z sshd[77]: Failed password for root from 8.8.4.4 port 22</pre>
<textarea id="field">10.0.0.1 in a textarea stays plain 8.8.8.8</textarea>
<input id="input" value="8.8.8.8">
<div id="editor" contenteditable="true">editable 1.0.0.1 stays plain</div>
<p id="later"></p>
</body></html>`;

/** Detection's hard cases: versions, CIDR blocks, bracketed and mapped IPv6, addresses in links. */
export const DETECT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Detection</title>
<style>body{font:16px/1.5 sans-serif;margin:24px;max-width:760px}</style></head>
<body>
<p id="version">Version string 4.2.1.0, firmware v 10.1.2.3, build 2.0.0.1 and v4.2.1.0 are versions.</p>
<p id="cidr">Blocked 45.33.0.0/16 and 2001:db8::/32 at the edge.</p>
<p id="v6">Upstream http://[2a00:1450:4001::1]:8080/ and mapped ::ffff:8.8.8.8.</p>
<p id="link">See <a href="https://example.com/host/1.1.1.1">host 1.1.1.1</a> and <button>9.9.9.9</button> and 8.8.4.4.</p>
<p id="selection">Select this: <span id="picked">9.9.9.9</span> please.</p>
<p><a href="#top" id="after">A link after the addresses</a></p>
</body></html>`;

/**
 * A log viewer with `lines` rows, each with a different public address. A PerformanceObserver
 * registered before anything else records every long task (> 50 ms) of the page.
 */
export function logPage(lines: number): string {
  const rows: string[] = [];
  for (let i = 0; i < lines; i++) {
    const ip = `${81 + (i % 100)}.${(i >> 8) & 255}.${i & 255}.${1 + (i % 200)}`;
    rows.push(`<div class="row">2026-11-22T03:04:${String(i % 60).padStart(2, "0")}Z GET /api/items/${i} 200 ${ip} "curl/8.5"</div>`);
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Log viewer</title>
<script>
  window.__longTasks = [];
  new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, duration: e.duration }); })
    .observe({ type: "longtask", buffered: true });
  // When the content script arrives (its card host is the first thing it adds).
  new MutationObserver((records, observer) => {
    if (document.querySelector("ipatlas-card")) { window.__extensionStart = performance.now(); observer.disconnect(); }
  }).observe(document.documentElement, { childList: true });
</script>
<style>body{font:13px/1.4 monospace;margin:8px}</style></head>
<body>${rows.join("\n")}</body></html>`;
}
