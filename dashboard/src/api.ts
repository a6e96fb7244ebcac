/**
 * The dashboard's client for /admin/api: every answer is parsed with the shared schemas of
 * lib/schemas/admin.ts; mutations carry the session's CSRF token.
 */
import ky from "ky";
import { z } from "zod";
import { errorEnvelopeSchema, envelopeSchema } from "../../lib/schemas/envelope.js";
import { healthResponseSchema } from "../../lib/schemas/api.js";
import {
  ADMIN_MESSAGES,
  CSRF_HEADER,
  addedWebsiteSchema,
  adminConversionListSchema,
  adminConversionSchema,
  conversionMapSchema,
  createdKeySchema,
  createdProjectSchema,
  keyListSchema,
  keyResultSchema,
  planChangedSchema,
  projectListSchema,
  rolledKeySchema,
  sessionSchema,
  websiteListSchema,
  websiteResultSchema,
  type ConversionFilterInput,
  type Plan,
} from "./schemas.js";

export class AdminApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

const http = ky.create({ prefixUrl: "/admin/api", credentials: "same-origin", throwHttpErrors: false, retry: 0, timeout: 30_000 });

let csrfToken: string | null = null;
/** called when the server says the session is gone, so the app can show the sign-in form */
let onSignedOut: () => void = () => {};
export const setSignedOutHandler = (handler: () => void) => (onSignedOut = handler);

async function call<T extends z.ZodType>(method: string, path: string, schema: T, json?: unknown): Promise<z.infer<T>> {
  const headers: Record<string, string> = {};
  if (method !== "GET" && csrfToken) headers[CSRF_HEADER] = csrfToken;
  let response: Response;
  try {
    response = await http(path, { method, headers, json });
  } catch {
    throw new AdminApiError("The server cannot be reached. Check that it is running.", 0);
  }
  const body: unknown = await response.json().catch(() => null);
  if (response.ok) return (envelopeSchema(schema).parse(body) as { data: z.infer<T> }).data;
  const error = errorEnvelopeSchema.safeParse(body);
  const message = error.success ? error.data.message : `Request failed (${response.status})`;
  if (response.status === 401 && message === ADMIN_MESSAGES.signInRequired) {
    csrfToken = null;
    onSignedOut();
  }
  throw new AdminApiError(message, response.status);
}

const session = (data: z.infer<typeof sessionSchema>) => {
  csrfToken = data.csrfToken;
  return data;
};

export const api = {
  currentSession: async () => session(await call("GET", "session", sessionSchema)),
  signIn: async (token: string) => session(await call("POST", "session", sessionSchema, { token })),
  signOut: async () => {
    await call("DELETE", "session", z.null());
    csrfToken = null;
  },

  projects: () => call("GET", "projects", projectListSchema),
  createProject: (name: string, plan: Plan) => call("POST", "projects", createdProjectSchema, { name, plan }),
  setPlan: (projectId: string, plan: Plan) => call("POST", `projects/${encodeURIComponent(projectId)}/plan`, planChangedSchema, { plan }),

  keys: (projectId: string) => call("GET", `projects/${encodeURIComponent(projectId)}/keys`, keyListSchema),
  createKey: (projectId: string, name: string) =>
    call("POST", `projects/${encodeURIComponent(projectId)}/keys`, createdKeySchema, { name }),
  rollKey: (keyId: string) => call("POST", `keys/${encodeURIComponent(keyId)}/roll`, rolledKeySchema),
  revokeKey: (keyId: string) => call("POST", `keys/${encodeURIComponent(keyId)}/revoke`, keyResultSchema),

  websites: (projectId: string) => call("GET", `projects/${encodeURIComponent(projectId)}/websites`, websiteListSchema),
  addWebsite: (projectId: string, origin: string) =>
    call("POST", `projects/${encodeURIComponent(projectId)}/websites`, addedWebsiteSchema, { origin }),
  removeWebsite: (websiteId: string) => call("DELETE", `websites/${encodeURIComponent(websiteId)}`, websiteResultSchema),

  conversions: (projectId: string, query: ConversionFilterInput & { offset: number; limit: number }) =>
    call("GET", `projects/${encodeURIComponent(projectId)}/conversions?${queryString(query)}`, adminConversionListSchema),
  conversion: (projectId: string, uniqueId: string) =>
    call("GET", `projects/${encodeURIComponent(projectId)}/conversions/${encodeURIComponent(uniqueId)}`, adminConversionSchema),
  conversionMap: (projectId: string, filter: ConversionFilterInput) =>
    call("GET", `projects/${encodeURIComponent(projectId)}/map?${queryString(filter)}`, conversionMapSchema),
  /** the export's address, for a streamed fetch (see exportConversions) */
  exportUrl: (projectId: string, filter: ConversionFilterInput, format: "csv" | "ndjson") =>
    `/admin/api/projects/${encodeURIComponent(projectId)}/conversions/export?${queryString({ ...filter, format })}`,

  /** the public health answer: the data in use and its freshness */
  health: async () => envelopeSchema(healthResponseSchema).parse(await ky.get("/healthz", { retry: 0, timeout: 30_000 }).json()).data,
};

function queryString(values: Record<string, string | number | undefined>): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) if (value !== undefined && value !== "") params.set(name, String(value));
  return params;
}

/**
 * Downloads an export while it streams, reporting the rows received so far; resolves with the
 * file as a Blob and its row count. An answer that is not a file (a 400 for a bad filter) throws
 * its message.
 */
export async function exportConversions(url: string, onRows: (rows: number) => void, signal?: AbortSignal): Promise<{ blob: Blob; rows: number; name: string }> {
  const response = await fetch(url, { credentials: "same-origin", signal });
  if (!response.ok || !response.body) {
    const body: unknown = await response.json().catch(() => null);
    const error = errorEnvelopeSchema.safeParse(body);
    if (response.status === 401) onSignedOut();
    throw new AdminApiError(error.success ? error.data.message : `Export failed (${response.status})`, response.status);
  }
  const reader = response.body.getReader();
  const parts: Uint8Array[] = [];
  // a CSV's first line is its header
  const headerLines = url.includes("format=csv") ? 1 : 0;
  let newlines = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    parts.push(value);
    for (const byte of value) if (byte === 10) newlines++;
    onRows(Math.max(0, newlines - headerLines));
  }
  const name = /filename="([^"]+)"/.exec(response.headers.get("content-disposition") ?? "")?.[1] ?? "conversions";
  return { blob: new Blob(parts as BlobPart[], { type: response.headers.get("content-type") ?? "" }), rows: Math.max(0, newlines - headerLines), name };
}
