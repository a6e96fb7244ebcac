/**
 * The browser extension (issue #4): WXT builds Chrome MV3 and Firefox from entrypoints/ (thin)
 * and extension/ (the logic). Preact through vite's esbuild JSX settings, no plugin needed.
 */
import { defineConfig } from "wxt";

export default defineConfig({
  entrypointsDir: "entrypoints",
  publicDir: "extension/public",
  // No auto-imports: every module says what it uses, and WXT does not scan the other teams' folders.
  imports: false,
  vite: () => ({
    esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  }),
  manifest: ({ browser }) => ({
    name: "__MSG_extName__",
    description: "__MSG_extDescription__",
    default_locale: "en",
    permissions: [
      "storage", "webRequest", "tabs", "declarativeNetRequestWithHostAccess", "contextMenus",
      // Chrome's worker cannot decode the flag SVG for the toolbar icon; Firefox's background page can.
      ...(browser === "firefox" ? ["dns"] : ["offscreen"]),
    ],
    commands: {
      "lookup-selection": {
        suggested_key: { default: "Alt+Shift+I" },
        description: "__MSG_commandLookup__",
      },
    },
    // Any page may show addresses, and the server URL is the user's choice.
    host_permissions: ["<all_urls>"],
    action: { default_title: "IP Atlas", default_icon: { 16: "icon/16.png", 32: "icon/32.png" } },
    ...(browser === "firefox"
      ? {
          browser_specific_settings: {
            gecko: {
              id: "ipatlas@ipatlas.dev",
              strict_min_version: "115.0",
              // Addresses go only to the server the user configured, never to us or a third party.
              data_collection_permissions: { required: ["none"] },
            },
          },
        }
      : {}),
  }),
});
