import { describe, expect, it } from "vitest";
import { demoApiOrigin, demoPageCsp } from "./demo-page.js";

describe("demoApiOrigin", () => {
  it("uses the public URL when it is another name than the page's", () => {
    expect(demoApiOrigin("http://127.0.0.1:8787", undefined, "https://geo.example.com/path?x")).toBe("https://geo.example.com");
    expect(demoApiOrigin("https://geo.example.com", undefined, "https://geo.example.com")).toBe("https://geo.example.com");
  });

  it("uses the loopback twin so the widget's GET carries an Origin", () => {
    expect(demoApiOrigin("http://127.0.0.1:8787", undefined, null)).toBe("http://localhost:8787");
    expect(demoApiOrigin("http://localhost:5173", undefined, null)).toBe("http://127.0.0.1:5173");
  });

  it("lets ?api= choose only among this server's names", () => {
    expect(demoApiOrigin("http://localhost:8787", "http://127.0.0.1:8787/", "https://geo.example.com")).toBe("http://127.0.0.1:8787");
    for (const requested of ["https://evil.com", "javascript:alert(1)", "not a url", "http://localhost:8788", "https://geo.example.com.evil.com"]) {
      expect(demoApiOrigin("http://127.0.0.1:8787", requested, null), requested).toBe("http://localhost:8787");
      expect(demoApiOrigin("https://geo.example.com", requested, null), requested).toBe("https://geo.example.com");
    }
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
