/**
 * The hover card in real Chromium: installed on a page, shown over a private-address mark (no
 * lookup needed), and destroy() leaves no listener behind on the document (read through the
 * DevTools protocol, which lists what is really attached).
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleForPage, launchBrowser } from "../../test/helpers/chromium.js";

let browser: Browser;
let harness: string;

beforeAll(async () => {
  harness = await bundleForPage(
    `import { installHoverCard } from "./hover-card.tsx";
        import { createContentLookups } from "./lookups.ts";
        window.installCard = () => {
          const lookups = createContentLookups({ ask: async () => ({ results: {} }) });
          window.card = installHoverCard(document, lookups);
        };`,
    import.meta.dirname,
  );
  browser = await launchBrowser();
});
afterAll(() => browser?.close());

async function documentListenerTypes(page: Page): Promise<string[]> {
  const cdp = await page.context().newCDPSession(page);
  const { result } = await cdp.send("Runtime.evaluate", { expression: "document" });
  const { listeners } = await cdp.send("DOMDebugger.getEventListeners", { objectId: result.objectId! });
  await cdp.detach();
  return listeners.map((listener) => listener.type).sort();
}

describe("installHoverCard", () => {
  it("shows the card over a mark, and destroy() removes it and every document listener", async () => {
    const page = await browser.newPage();
    await page.setContent(`<!doctype html><html><body style="height: 3000px">
      <p>At <ipatlas-ip data-ip="10.0.0.1" data-public="0" tabindex="0">10.0.0.1</ipatlas-ip></p></body></html>`);
    await page.addScriptTag({ content: harness });
    expect(await documentListenerTypes(page)).toEqual([]);

    await page.evaluate(() => (window as any).installCard());
    expect(await documentListenerTypes(page)).toEqual(["focusin", "focusout", "keydown", "mouseout", "mouseover", "scroll"]);
    await page.hover("ipatlas-ip");
    await expect.poll(() => page.locator("ipatlas-card").evaluate((el) => (el as HTMLElement).style.display)).toBe("block");

    await page.evaluate(() => (window as any).card.destroy());
    expect(await page.locator("ipatlas-card").count()).toBe(0);
    expect(await documentListenerTypes(page)).toEqual([]);
    await page.close();
  });
});
