import { describe, expect, it } from "vitest";
import { memoryStorageArea } from "../shared/storage-area.js";
import { createTabServerIps } from "./tab-server-ips.js";

describe("createTabServerIps", () => {
  it("remembers the main frame's server ip per tab (webRequest details.ip)", async () => {
    const tabs = createTabServerIps(memoryStorageArea(), null);
    tabs.onResponseStarted({ tabId: 7, url: "https://example.com/a", ip: "93.184.215.14", type: "main_frame" });
    tabs.onResponseStarted({ tabId: 7, url: "https://cdn.example.net/x.js", ip: "1.2.3.4", type: "script" });
    expect(await tabs.lookup(7, "https://example.com/b#c")).toEqual({ ip: "93.184.215.14", source: "webRequest" });
    expect(await tabs.lookup(7, "https://other.org/")).toEqual({ ip: null, source: null });
    tabs.onTabRemoved(7);
    expect((await tabs.lookup(7, "https://example.com/")).source).toBe("webRequest"); // the host's address, below
    expect(await tabs.lookup(7, "https://unseen.net/")).toEqual({ ip: null, source: null });
  });

  it("answers a page without a fresh response (back/forward or HTTP cache) with its host's last address", async () => {
    const tabs = createTabServerIps(memoryStorageArea(), null);
    tabs.onResponseStarted({ tabId: 7, url: "https://example.com/a", ip: "93.184.215.14", type: "main_frame" });
    tabs.onResponseStarted({ tabId: 7, url: "https://other.org/", ip: "8.8.8.8", type: "main_frame" });
    await new Promise((resolve) => setTimeout(resolve, 0));
    // Back to example.com from the back/forward cache: no new response, the tab's record is other.org's.
    expect(await tabs.lookup(7, "https://example.com/a")).toEqual({ ip: "93.184.215.14", source: "webRequest" });
    expect(await tabs.lookup(9, "https://other.org/x")).toEqual({ ip: "8.8.8.8", source: "webRequest" });
  });

  it("falls back to DNS where webRequest gave no ip (Firefox), only for http(s) pages", async () => {
    const asked: string[] = [];
    const tabs = createTabServerIps(memoryStorageArea(), async (host) => (asked.push(host), "2606:2800:21f:cb07:6820:80da:af6b:8b2c"));
    tabs.onResponseStarted({ tabId: 3, url: "https://example.com/", type: "main_frame" });
    expect(await tabs.lookup(3, "https://example.com/")).toEqual({ ip: "2606:2800:21f:cb07:6820:80da:af6b:8b2c", source: "dns" });
    expect(await tabs.lookup(3, "about:blank")).toEqual({ ip: null, source: null });
    expect(asked).toEqual(["example.com"]);
  });
});
