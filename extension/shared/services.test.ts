import { describe, expect, it } from "vitest";
import { checkService, DEFAULT_SERVICES, sanitizeServices, serviceUrl } from "./services.js";

describe("lookup services", () => {
  it("fills the address into the template", () => {
    expect(DEFAULT_SERVICES.map((s) => serviceUrl(s, "2001:db8::1"))).toEqual([
      "https://rdap.org/ip/2001%3Adb8%3A%3A1",
      "https://bgp.he.net/ip/2001%3Adb8%3A%3A1",
      "https://stat.ripe.net/2001%3Adb8%3A%3A1",
    ]);
    expect(serviceUrl({ name: "x", url: "https://x.test/{ip}?q={ip}" }, "45.33.0.0/16")).toBe("https://x.test/45.33.0.0%2F16?q=45.33.0.0%2F16");
  });

  it("says what is wrong with a new service", () => {
    expect(checkService("", "https://x/{ip}")).toMatch(/name/);
    expect(checkService("x", "https://x/")).toMatch(/\{ip\}/);
    expect(checkService("x", "javascript:alert({ip})")).toMatch(/https:/);
    expect(checkService("x", "not a url {ip}")).toMatch(/not a URL/);
    expect(checkService("Shodan", "https://www.shodan.io/host/{ip}")).toBeNull();
  });

  it("repairs what is stored: defaults when missing, unusable entries dropped", () => {
    expect(sanitizeServices(undefined)).toEqual(DEFAULT_SERVICES);
    expect(sanitizeServices([])).toEqual([]);
    expect(sanitizeServices([{ name: " A ", url: "https://a/{ip}" }, { name: "B", url: "ftp://b/{ip}" }, 7])).toEqual([{ name: "A", url: "https://a/{ip}" }]);
  });
});
