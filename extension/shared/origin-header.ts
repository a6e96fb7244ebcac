/**
 * Chrome leaves the Origin header off an extension's GET requests to hosts it has host permission
 * for (they skip CORS), but the server requires Origin with a public key
 * (docs/api.md#keys-and-origins). One declarativeNetRequest session rule puts the extension's own
 * origin back on its requests to the configured server: only requests the extension itself starts
 * (initiatorDomains), only that host. The worker keeps it in step with the settings; the options
 * page sets it before testing.
 */
export const ORIGIN_RULE_ID = 1;

export interface SessionRulesApi {
  updateSessionRules(options: { removeRuleIds?: number[]; addRules?: unknown[] }): Promise<void>;
}

/** The rule for `serverUrl`, or null when the URL is not an http(s) URL. */
export function originRule(serverUrl: string, extensionOrigin: string) {
  let host: string;
  try {
    const url = new URL(serverUrl);
    if (url.protocol !== "http:" && url.protocol !== "https:") return null;
    host = url.hostname.replace(/^\[|\]$/g, "");
  } catch {
    return null;
  }
  return {
    id: ORIGIN_RULE_ID,
    priority: 1,
    action: {
      type: "modifyHeaders",
      requestHeaders: [{ header: "origin", operation: "set", value: extensionOrigin }],
    },
    condition: {
      requestDomains: [host],
      initiatorDomains: [new URL(extensionOrigin).host],
      resourceTypes: ["xmlhttprequest"],
    },
  };
}

/** Installs (or removes, for an unusable URL) the rule. Browsers without the API are left alone. */
export async function syncOriginRule(api: SessionRulesApi | undefined, serverUrl: string, extensionOrigin: string) {
  if (!api?.updateSessionRules) return;
  const rule = originRule(serverUrl, extensionOrigin);
  await api.updateSessionRules({ removeRuleIds: [ORIGIN_RULE_ID], addRules: rule ? [rule] : [] }).catch(() => {});
}
