import { describe, expect, it } from "vitest";
import { KEY_PLACEHOLDER, takesWidget, widgetScriptUrl, widgetSnippet } from "./snippet.js";
import type { WidgetManifest } from "./manifest.js";

const manifest: WidgetManifest = {
  hash: "0123456789abcdef",
  file: "0123456789abcdef.js",
  integrity: "sha384-AAAA",
  bytes: 1,
  gzipBytes: 1,
};

describe("widgetSnippet", () => {
  it("pins the versioned script with its SRI hash and the public key", () => {
    expect(widgetSnippet({ baseUrl: "https://geo.example.com", publicKey: "ipa_pk_abc", manifest })).toBe(
      "<ipatlas-widget></ipatlas-widget>\n" +
        '<script async src="https://geo.example.com/widget/0123456789abcdef.js" integrity="sha384-AAAA" ' +
        'crossorigin="anonymous" data-key="ipa_pk_abc"></script>',
    );
  });

  it("uses a placeholder when the key value is not known", () => {
    expect(widgetSnippet({ baseUrl: "http://127.0.0.1:8787/", manifest })).toContain(`data-key="${KEY_PLACEHOLDER}"`);
  });

  it("keeps a base path and escapes attribute values", () => {
    expect(widgetScriptUrl("https://example.com/geo", manifest)).toBe("https://example.com/geo/widget/0123456789abcdef.js");
    expect(widgetSnippet({ baseUrl: "https://example.com", publicKey: 'x"><b>', manifest })).toContain('data-key="x&quot;&gt;&lt;b&gt;"');
  });
});

describe("takesWidget", () => {
  it("gives websites a snippet and extensions none", () => {
    expect(takesWidget("example.com")).toBe(true);
    expect(takesWidget("localhost:5173")).toBe(true);
    expect(takesWidget("chrome-extension://abcdefghijklmnopabcdefghijklmnop")).toBe(false);
    expect(takesWidget("moz-extension://1b2c3d4e-0000-4000-8000-123456789abc")).toBe(false);
  });
});
