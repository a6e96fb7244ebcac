import { describe, expect, it } from "vitest";
import { demoApiOrigin, demoPageCsp } from "./demo-page.js";

describe("demoApiOrigin", () => {
  it("takes the first valid origin that is not the page's own", () => {
    expect(demoApiOrigin("http://127.0.0.1:8787", ["https://geo.example.com/path?x", "http://other"])).toBe("https://geo.example.com");
    expect(demoApiOrigin("https://geo.example.com", ["https://geo.example.com/", "https://api.example.com"])).toBe("https://api.example.com");
  });

  it("ignores what is not an http(s) URL", () => {
    expect(demoApiOrigin("https://geo.example.com", ["javascript:alert(1)", "not a url", undefined, null])).toBe("https://geo.example.com");
  });

  it("uses the loopback twin so the widget's GET carries an Origin", () => {
    expect(demoApiOrigin("http://127.0.0.1:8787", [])).toBe("http://localhost:8787");
    expect(demoApiOrigin("http://localhost:5173", [undefined])).toBe("http://127.0.0.1:5173");
  });
});

describe("demoPageCsp", () => {
  it("allows the API origin for scripts, requests and flags, and no inline code", () => {
    const csp = demoPageCsp("https://geo.example.com");
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self' https://geo.example.com");
    expect(csp).toContain("connect-src https://geo.example.com");
    expect(csp).not.toMatch(/unsafe/);
  });
});
