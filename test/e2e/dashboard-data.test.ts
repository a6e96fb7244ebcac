/**
 * The dashboard's overview shows the data's freshness from /healthz: each database, its age and a
 * stale mark. Screenshot: /tmp/ipatlas-dashboard-data.png.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { buildDashboard } from "../../dashboard/build.js";
import { launchBrowser } from "../helpers/chromium.js";
import { startServer, type TestServer } from "../helpers/server.js";

const TOKEN = "e2e-admin-token-data-0123456789";
let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  await buildDashboard();
  // a limit of 1 day makes the bundled data stale on any date after its build
  server = await startServer({ env: { IPATLAS_ADMIN_TOKEN: TOKEN, IPATLAS_DATA_MAX_AGE_DAYS: "1" } });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

it("lists each database with its age and marks stale data", async () => {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  await page.goto(`${server.url}/dashboard`);
  await page.getByLabel("Admin token").fill(TOKEN);
  await page.getByRole("button", { name: "Sign in" }).click();
  // the only project (the first run's) opens directly; the overview is one click away
  await page.getByRole("tab", { name: "Conversions" }).waitFor();
  await page.getByRole("link", { name: "IP Atlas" }).click();
  const section = page.getByRole("region", { name: /Geolocation data/ });
  await section.waitFor();
  const rows = section.getByRole("row");
  await expect.poll(() => rows.count()).toBe(4);
  const cells = await rows.nth(1).getByRole("cell").allTextContents();
  expect(cells[0]).toBe("city");
  expect(cells[1]).toMatch(/^@ip-location-db\/dbip-city-mmdb@/);
  expect(cells[2]).toMatch(/^\d{4}-\d\d-\d\d$/);
  expect(cells[3]).toMatch(/^\d+ daysstale$/);
  expect(await section.getByRole("heading").textContent()).toBe("Geolocation data stale");
  expect(await section.locator("p").textContent()).toBe("Stale after 1 day. Updates: off, last check never.");
  await page.screenshot({ path: "/tmp/ipatlas-dashboard-data.png", fullPage: true });
});
