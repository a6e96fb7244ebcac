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
  type AdminConversionsQuery,
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

  conversions: (projectId: string, query: Partial<AdminConversionsQuery>) => {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== "") params.set(name, String(value));
    return call("GET", `projects/${encodeURIComponent(projectId)}/conversions?${params}`, adminConversionListSchema);
  },
  conversion: (projectId: string, uniqueId: string) =>
    call("GET", `projects/${encodeURIComponent(projectId)}/conversions/${encodeURIComponent(uniqueId)}`, adminConversionSchema),
  conversionMap: (projectId: string) => call("GET", `projects/${encodeURIComponent(projectId)}/map`, conversionMapSchema),

  /** the public health answer: the data in use and its freshness */
  health: async () => envelopeSchema(healthResponseSchema).parse(await ky.get("/healthz", { retry: 0, timeout: 30_000 }).json()).data,
};
