import { describe, expect, it } from "vitest";
import { isExtensionPattern, originAllowed, parseOriginPattern } from "./index.js";

const normalized = (input: string) => {
  const result = parseOriginPattern(input);
  return result.ok ? result.normalized : `error: ${result.error}`;
};

describe("parseOriginPattern", () => {
  it("normalises the four kinds of pattern", () => {
    expect(normalized(" Example.COM ")).toBe("example.com");
    expect(normalized("*.Example.com")).toBe("*.example.com");
    expect(normalized("localhost:5173")).toBe("localhost:5173");
    expect(normalized("https://App.example.com:8443/")).toBe("https://app.example.com:8443");
    expect(normalized("https://app.example.com:443")).toBe("https://app.example.com");
    expect(normalized("chrome-extension://abcdefghijklmnopabcdefghijklmnop")).toBe("chrome-extension://abcdefghijklmnopabcdefghijklmnop");
    expect(normalized("moz-extension://1b2c3d4e-0000-4000-8000-123456789abc")).toBe("moz-extension://1b2c3d4e-0000-4000-8000-123456789abc");
    expect(normalized("bücher.de")).toBe("xn--bcher-kva.de");
    expect(normalized("127.0.0.1:8080")).toBe("127.0.0.1:8080");
  });

  it("refuses what is not an origin pattern", () => {
    for (const bad of ["", "   ", "example.com/path", "https://example.com/path", "ftp://example.com", "ex ample.com",
      "*", "*.", "a.*.example.com", "https://*.example.com", "example.com:99999", "user@example.com", "example.com?x=1", "-bad-.com",
      "*.com", "*.localhost:8080", "null", "NULL", "https://user@shop.example.com", "https://shop%2eexample.com",
      "shop.example.com:", "https://shop.example.com:", "shop.example.com:0443", "https://shop.example.com:0443", ".example.org",
      "a..example.org", "*..example.org", "https://a..example.org", "example.com:0", "chrome-extension://abc",
      "chrome-extension://abcdefghijklmnopabcdefghijklmnoz", "moz-extension://abc", "safari-web-extension://abcdefghijklmnopabcdefghijklmnop"]) {
      expect(parseOriginPattern(bad).ok, bad).toBe(false);
    }
  });
});

describe("extension ids", () => {
  it("names what a valid id looks like", () => {
    const result = parseOriginPattern("chrome-extension://abc");
    expect(result.ok ? "" : result.error).toMatch(/32 letters from a to p/);
    const firefox = parseOriginPattern("moz-extension://not-a-uuid");
    expect(firefox.ok ? "" : firefox.error).toMatch(/UUID/);
  });

  it("tells extension patterns from websites", () => {
    expect(isExtensionPattern("chrome-extension://abcdefghijklmnopabcdefghijklmnop")).toBe(true);
    expect(isExtensionPattern("moz-extension://1b2c3d4e-0000-4000-8000-123456789abc")).toBe(true);
    expect(isExtensionPattern("example.com")).toBe(false);
    expect(isExtensionPattern("https://app.example.com:8443")).toBe(false);
  });
});

describe("originAllowed", () => {
  it("host patterns: http and https on default ports only", () => {
    expect(originAllowed("example.com", "https://example.com")).toBe(true);
    expect(originAllowed("example.com", "http://EXAMPLE.com")).toBe(true);
    expect(originAllowed("example.com", "https://example.com:8443")).toBe(false);
    expect(originAllowed("example.com", "https://www.example.com")).toBe(false);
    expect(originAllowed("example.com", "https://example.com.evil.test")).toBe(false);
  });

  it("wildcards match subdomains, not the apex", () => {
    expect(originAllowed("*.example.com", "https://app.example.com")).toBe(true);
    expect(originAllowed("*.example.com", "https://a.b.example.com")).toBe(true);
    expect(originAllowed("*.example.com", "https://example.com")).toBe(false);
    expect(originAllowed("*.example.com", "https://badexample.com")).toBe(false);
  });

  it("host:port and full origins", () => {
    expect(originAllowed("localhost:5173", "http://localhost:5173")).toBe(true);
    expect(originAllowed("localhost:5173", "http://localhost:5174")).toBe(false);
    expect(originAllowed("example.com:443", "https://example.com")).toBe(true);
    expect(originAllowed("example.com:443", "http://example.com:443")).toBe(true);
    expect(originAllowed("example.com:443", "http://example.com")).toBe(false);
    expect(originAllowed("example.com:80", "http://example.com")).toBe(true);
    expect(originAllowed("example.com:80", "https://example.com")).toBe(false);
    expect(originAllowed("https://app.example.com:8443", "https://app.example.com:8443")).toBe(true);
    expect(originAllowed("https://app.example.com:8443", "http://app.example.com:8443")).toBe(false);
    const chrome = "chrome-extension://abcdefghijklmnopabcdefghijklmnop";
    expect(originAllowed(chrome, chrome.toUpperCase().replace("CHROME-EXTENSION", "chrome-extension"))).toBe(true);
    expect(originAllowed(chrome, "moz-extension://abcdefghijklmnopabcdefghijklmnop")).toBe(false);
  });

  it("compares IDNs in punycode and never allows a missing or null Origin", () => {
    expect(originAllowed("bücher.de", "https://xn--bcher-kva.de")).toBe(true);
    expect(originAllowed("example.com", undefined)).toBe(false);
    expect(originAllowed("example.com", "null")).toBe(false);
    expect(originAllowed("example.com", "https://example.com/path")).toBe(false);
  });

  it("takes an Origin header only as a browser serializes it", () => {
    const refused = ["https://shop.example.com/", "https://user@shop.example.com", "https://user:pw@shop.example.com",
      "https://shop%2eexample.com", "https://shop.example.com:", "https://shop.example.com:0443", "https://shop.example.com:443",
      "https://.example.org", "https://a..example.org", "https://shop.example.com.", "https://b\u00fccher.de", " https://shop.example.com",
      "https://shop.example.com/?", "https://shop.example.com#", "https://010.1.1.1", "https://shop.example.com\\"];
    for (const origin of refused) {
      expect(originAllowed("shop.example.com", origin), origin).toBe(false);
      expect(originAllowed("*.example.org", origin), origin).toBe(false);
      expect(originAllowed("https://shop.example.com", origin), origin).toBe(false);
    }
    expect(originAllowed("*.example.org", "https://a.example.org")).toBe(true);
    expect(originAllowed("shop.example.com", "https://shop.example.com")).toBe(true);
    expect(originAllowed("https://shop.example.com/", "https://shop.example.com")).toBe(true);
  });
});
