/**
 * The options page's "Test connection": checks the form's values before sending anything, then
 * asks the server for the caller's own address (GET /convert without ip) with the given key.
 */
import { createClient, isApiError } from "../../lib/client/index.js";
import type { IpObject } from "../../lib/schemas/ip-object.js";
import { t } from "../shared/i18n.js";
import { toWireError, type WireError } from "../shared/wire-error.js";

export type ConnectionResult = { ok: true; data: IpObject | null } | { ok: false; error: WireError };

/** A problem with the form's values that needs no request to find, or null. */
export function checkFields(serverUrl: string, apiKey: string): string | null {
  if (!serverUrl.trim()) return t("fieldServerMissing");
  let url: URL;
  try {
    url = new URL(serverUrl.trim());
  } catch {
    return t("fieldServerInvalid");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return t("fieldServerProtocol");
  if (!apiKey.trim()) return t("fieldKeyMissing");
  return null;
}

export async function testConnection(serverUrl: string, apiKey: string, fetchFn?: typeof fetch): Promise<ConnectionResult> {
  const client = createClient({ baseUrl: serverUrl.trim(), apiKey: apiKey.trim(), ...(fetchFn ? { fetch: fetchFn } : {}) });
  try {
    const { data } = await client.convert();
    return { ok: true, data };
  } catch (error) {
    if (isApiError(error)) return { ok: false, error: toWireError(error) };
    throw error;
  }
}

/** The CLI line that registers this extension for a project. */
export function registerCommand(origin: string): string {
  return `ipatlas website add --project <PROJECT_ID> --origin ${origin}`;
}
