/**
 * Requests and responses of the admin API under /admin/api (issue #7). The server routes validate
 * with these and the dashboard parses every answer with them, so the two cannot drift.
 * Answers use the same envelope as the public API (envelope.ts).
 */
import { z } from "zod";
import { conversionSchema, conversionStatusSchema, planSchema, LIMITS } from "./api.js";

/** The admin API's own exact messages (the public API's stay in messages.ts). */
export const ADMIN_MESSAGES = {
  signedIn: "Signed in",
  signedOut: "Signed out",
  signInRequired: "Sign-in required",
  invalidToken: "Invalid admin token",
  csrfRejected: "Missing or invalid CSRF token",
  crossOrigin: "Cross-origin request refused",
  tooManySignIns: "Too many sign-in attempts waiting from your address",
} as const;

/** Header the dashboard sends on every mutation: the session's CSRF token, which another site cannot read. */
export const CSRF_HEADER = "x-csrf-token";
export const SESSION_COOKIE = "ipatlas_admin";

// ---- session ----
export const signInBodySchema = z.object({
  token: z.string({ error: "token must be a string" }).min(1, "token is required").max(512, "token is too long"),
});
export type SignInBody = z.infer<typeof signInBodySchema>;
export const sessionSchema = z.object({ csrfToken: z.string(), expiresAt: z.iso.datetime() });
export type Session = z.infer<typeof sessionSchema>;

// ---- projects and usage ----
export const usageSchema = z.object({
  plan: planSchema,
  used: z.number().int(),
  /** null: unlimited (scale) */
  limit: z.number().int().nullable(),
  periodStart: z.iso.datetime(),
  periodEnd: z.iso.datetime(),
});
export type Usage = z.infer<typeof usageSchema>;

export const projectSchema = z.object({ id: z.string(), name: z.string(), plan: planSchema });
export const adminProjectSchema = projectSchema.extend({ usage: usageSchema });
export type AdminProject = z.infer<typeof adminProjectSchema>;
export const projectListSchema = z.object({ projects: z.array(adminProjectSchema) });

/**
 * A project or key name, for the admin API and (through server/services) the CLI alike. Control
 * characters are refused: NUL, which PostgreSQL cannot store, and ESC or BEL, which a terminal
 * would obey when `project list` prints the name; so are the bidirectional overrides and
 * isolates, which make a listed name read differently from what it is.
 */
export const displayName = z
  .string({ error: "name must be a string" })
  .trim()
  .min(1, "name is required")
  .max(100, "name must be at most 100 characters")
  .regex(/^[^\p{Cc}\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]*$/u, "name must not contain control characters");
const projectName = displayName;
const planField = z.enum(planSchema.options, { error: "plan must be one of free, starter, growth, scale" });

export const createProjectBodySchema = z.object({ name: projectName, plan: planField.default("free") });
export type CreateProjectBody = z.infer<typeof createProjectBodySchema>;
export const setPlanBodySchema = z.object({ plan: planField });
export const planChangedSchema = z.object({ project: projectSchema });
export type SetPlanBody = z.infer<typeof setPlanBodySchema>;

// ---- keys ----
export const adminKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(["secret", "public"]),
  prefix: z.string(),
  createdAt: z.iso.datetime(),
  lastUsedAt: z.iso.datetime().nullable(),
  revokedAt: z.iso.datetime().nullable(),
  websiteId: z.string().nullable(),
});
export type AdminKey = z.infer<typeof adminKeySchema>;
export const keyListSchema = z.object({ keys: z.array(adminKeySchema) });

export const createKeyBodySchema = z.object({ name: displayName });
export type CreateKeyBody = z.infer<typeof createKeyBodySchema>;

/** A key's full value travels only in these answers: when created or rolled. */
/** a new project comes with its first secret key, named "default" (as `ipatlas project create`) */
export const createdProjectSchema = z.object({ project: projectSchema, key: adminKeySchema, secretKey: z.string() });
export const createdKeySchema = z.object({ key: adminKeySchema, secretKey: z.string() });
/** exactly one of secretKey / publicKey, by the key's kind; a website key's answer brings its new snippet */
export const rolledKeySchema = z.object({
  key: adminKeySchema,
  secretKey: z.string().optional(),
  publicKey: z.string().optional(),
  snippet: z.object({ html: z.string() }).nullable().optional(),
});
export const keyResultSchema = z.object({ key: adminKeySchema });

// ---- websites ----
export const widgetSnippetSchema = z.object({ html: z.string() }).nullable();

export const adminWebsiteSchema = z.object({
  id: z.string(),
  origin: z.string(),
  /** the website's live public key, for rolling it */
  keyId: z.string().nullable(),
  keyPrefix: z.string().nullable(),
});
export type AdminWebsite = z.infer<typeof adminWebsiteSchema>;
export const websiteListSchema = z.object({ websites: z.array(adminWebsiteSchema) });
export const addWebsiteBodySchema = z.object({
  origin: z.string({ error: "origin must be a string" }).trim().min(1, "origin is required").max(300, "origin is too long"),
});
export type AddWebsiteBody = z.infer<typeof addWebsiteBodySchema>;
/** `snippet` is null when the server has no widget to embed. */
export const addedWebsiteSchema = z.object({
  website: adminWebsiteSchema,
  publicKey: z.string(),
  snippet: widgetSnippetSchema,
});
export const websiteResultSchema = z.object({ website: adminWebsiteSchema });

// ---- conversions ----
export const ADMIN_LIST_LIMIT_DEFAULT = 20;
const intParam = (name: string, min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, `${name} must be an integer between ${min} and ${max}`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `${name} must be an integer between ${min} and ${max}`);

export const adminConversionsQuerySchema = z.object({
  offset: intParam("offset", 0, Number.MAX_SAFE_INTEGER).optional().default(0),
  limit: intParam("limit", 1, LIMITS.listLimitMax).optional().default(ADMIN_LIST_LIMIT_DEFAULT),
  ipSearch: z.string().trim().max(100, "ipSearch must be at most 100 characters").optional(),
  status: z
    .enum(conversionStatusSchema.options, { error: "status must be one of success, failed, invalid-ip-address" })
    .optional(),
  /** ISO 3166-1 alpha-2 of the located country */
  country: z
    .string()
    .trim()
    .regex(/^[A-Za-z]{2}$/, "country must be a two-letter country code")
    .transform((code) => code.toUpperCase())
    .optional(),
  /** autonomous system number, with or without the AS prefix */
  asn: z
    .string()
    .trim()
    .regex(/^(AS)?\d{1,10}$/i, "asn must be an AS number such as 15169 or AS15169")
    .transform((value) => Number(value.replace(/^AS/i, "")))
    .optional(),
});
export type AdminConversionsQuery = z.infer<typeof adminConversionsQuerySchema>;
/** the list's filters, as the dashboard sends them (before parsing) */
export type ConversionFilterInput = { ipSearch?: string; status?: string; country?: string; asn?: string };

export const EXPORT_FORMATS = ["csv", "ndjson"] as const;
export const exportQuerySchema = adminConversionsQuerySchema.omit({ offset: true, limit: true }).extend({
  format: z.enum(EXPORT_FORMATS, { error: "format must be csv or ndjson" }).optional().default("csv"),
});

export const adminConversionListSchema = z.object({
  conversions: z.array(conversionSchema),
  hasMore: z.boolean(),
  totalCount: z.number().int(),
});
export type AdminConversionList = z.infer<typeof adminConversionListSchema>;
export const adminConversionSchema = z.object({ conversion: conversionSchema });
export const conversionIdParamSchema = z.uuid({ error: "uniqueId must be a uuid" });

/** Where recent conversions came from: one point per rounded location, and a count per country. */
export const MAP_RECENT_CONVERSIONS = 1000;
export const conversionMapSchema = z.object({
  sampled: z.number().int(),
  points: z.array(
    z.object({ latitude: z.number(), longitude: z.number(), count: z.number().int(), label: z.string() }),
  ),
  /** `numeric`: ISO 3166-1 numeric code, which the bundled country shapes are keyed by */
  countries: z.array(
    z.object({ code: z.string(), numeric: z.string().nullable(), name: z.string(), count: z.number().int() }),
  ),
  /** matching conversions per UTC day over the last MAP_DAYS days, oldest first, days without any included */
  days: z.array(z.object({ day: z.string(), count: z.number().int() })),
});
export const MAP_DAYS = 30;
export type ConversionMap = z.infer<typeof conversionMapSchema>;
