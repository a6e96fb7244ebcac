/**
 * The scanner in real Chromium (it needs layout, TreeWalker, MutationObserver and idle callbacks):
 * bundled with esbuild into a blank page, run on tricky markup.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleForPage, launchBrowser } from "../../test/helpers/chromium.js";

let browser: Browser;
let harness: string;

beforeAll(async () => {
  harness = await bundleForPage(
    `import { createScanner } from "./scanner.ts";
        window.startScanner = () => {
          window.marks = [];
          window.scanner = createScanner({ root: document.body, onMarks: (m) => window.marks.push(...m) });
          window.scanner.start();
        };`,
    import.meta.dirname,
  );
  browser = await launchBrowser();
});
afterAll(() => browser?.close());

async function scan(body: string): Promise<Page> {
  const page = await browser.newPage();
  await page.setContent(`<!doctype html><html><body>${body}</body></html>`);
  await page.addScriptTag({ content: harness });
  await page.evaluate(() => (window as any).startScanner());
  await page.evaluate(() => (window as any).scanner.idle());
  return page;
}

const markTexts = (page: Page, selector = "ipatlas-ip") =>
  page.locator(selector).evaluateAll((els) => els.map((el) => el.textContent));

describe("createScanner", () => {
  it("wraps addresses in page text, not in fields, editors, scripts or editable regions", async () => {
    const page = await scan(`
      <p>From 8.8.8.8 and <b>2001:db8::1</b>, also 10.0.0.1.</p>
      <textarea>1.1.1.1</textarea><input value="1.1.1.1">
      <div contenteditable="true"><span>1.1.1.1</span></div>
      <div class="cm-editor"><div class="cm-line">1.1.1.1</div></div>
      <div class="monaco-editor">1.1.1.1</div>
      <script>var ip = "1.1.1.1";</script><style>/* 1.1.1.1 */</style>`);
    expect(await markTexts(page)).toEqual(["8.8.8.8", "2001:db8::1", "10.0.0.1"]);
    expect(await page.locator("ipatlas-ip").evaluateAll((els) => els.map((el) => [el.getAttribute("data-public"), el.tabIndex]))).toEqual([
      ["1", -1],
      ["0", -1],
      ["0", -1],
    ]);
    await page.close();
  });

  it("makes no tab stops: marks in links are not focusable at all, the others only by script", async () => {
    const page = await scan(`<p>See <a href="#x">host 8.8.8.8</a> and 1.1.1.1 or <button>9.9.9.9</button></p>`);
    expect(await page.locator("ipatlas-ip").evaluateAll((els) => els.map((el) => [el.textContent, el.getAttribute("tabindex")]))).toEqual([
      ["8.8.8.8", null],
      ["1.1.1.1", "-1"],
    ]);
    await page.close();
  });

  it("leaves the text and the layout as they were", async () => {
    const body = `<p id="p" style="width: 300px">Blocked 8.8.8.8, 1.1.1.1 and 2606:4700::1111 after 3 attempts from 81.2.69.160.</p>`;
    const plain = await browser.newPage();
    await plain.setContent(`<!doctype html><html><body>${body}</body></html>`);
    const before = await plain.locator("#p").evaluate((el) => [el.textContent, el.getBoundingClientRect().height]);
    const page = await scan(body);
    expect(await page.locator("ipatlas-ip").count()).toBe(4);
    expect(await page.locator("#p").evaluate((el) => [el.textContent, el.getBoundingClientRect().height])).toEqual(before);
    await plain.close();
    await page.close();
  });

  it("wraps every address of one huge text node, in slices, keeping the text", async () => {
    const lines = Array.from({ length: 3000 }, (_, i) => `line ${i} from 81.${i >> 8}.${i & 255}.9 ok`).join("\n");
    const page = await scan(`<pre id="log">${lines}</pre>`);
    expect(await page.locator("ipatlas-ip").count()).toBe(3000);
    expect(await page.locator("#log").evaluate((el) => el.textContent)).toBe(lines);
    expect(await page.locator("ipatlas-ip ipatlas-ip").count()).toBe(0);
    await page.close();
  });

  it("picks up added nodes and changed text, and never wraps an address twice", async () => {
    const page = await scan(`<div id="feed"><p>first 8.8.8.8</p></div><p id="status">idle</p>`);
    await page.evaluate(() => {
      const p = document.createElement("p");
      p.textContent = "then 9.9.9.9 and 1.1.1.1";
      document.getElementById("feed")!.append(p);
      document.getElementById("status")!.firstChild!.textContent = "blocked 203.0.113.7";
    });
    await expect.poll(() => page.locator("ipatlas-ip").count()).toBe(4);
    await page.evaluate(() => (window as any).scanner.idle());
    expect(await markTexts(page)).toEqual(["8.8.8.8", "9.9.9.9", "1.1.1.1", "203.0.113.7"]);
    expect(await page.evaluate(() => (window as any).marks.length)).toBe(4);
    await page.close();
  });

  it("stops scanning when stopped", async () => {
    const page = await scan(`<p>8.8.8.8</p>`);
    await page.evaluate(() => {
      (window as any).scanner.stop();
      document.body.insertAdjacentHTML("beforeend", "<p>1.1.1.1</p>");
    });
    await page.waitForTimeout(300);
    expect(await markTexts(page)).toEqual(["8.8.8.8"]);
    await page.close();
  });
});
