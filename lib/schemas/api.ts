/**
 * Requests and responses of the public API (docs/api.md#endpoints). The server validates
 * with these and every client parses with them, so the two cannot drift.
 */
import { z } from "zod";
import { ipObjectSchema, selectedIpObjectSchema } from "./ip-object.js";

export const LIMITS = {
  ipsPerRequest: 5000,
  idsPerRequest: 100,
  listLimitMax: 50,
  listLimitDefault: 10,
  bodyBytes: 1024 * 1024,
} as const;

export const conversionStatusSchema = z.enum(["success", "failed", "invalid-ip-address"]);
export type ConversionStatus = z.infer<typeof conversionStatusSchema>;

/** A stored conversion. `data` is the full Ip object, or the part of it that `select` kept. */
export const conversionSchema = z.object({
  id: z.number().int(),
  uniqueId: z.uuid(),
  data: z.union([ipObjectSchema, selectedIpObjectSchema]),
  status: conversionStatusSchema,
  startedAt: z.iso.datetime(),
  completedAt: z.iso.datetime().nullable(),
  createdAt: z.iso.datetime(),
});
export type Conversion = z.infer<typeof conversionSchema>;

// GET /convert
export const convertQuerySchema = z.object({ ip: z.string().optional(), lang: z.string().optional() });
export const convertResponseSchema = ipObjectSchema.nullable();

// POST /convert
export const bulkConvertBodySchema = z.object({
  ips: z.array(z.string()).min(1).max(LIMITS.ipsPerRequest),
});
export type BulkConvertBody = z.infer<typeof bulkConvertBodySchema>;
export const bulkResultItemSchema = z.object({
  ip: z.string(),
  conversion: ipObjectSchema.nullable(),
  conversionId: z.uuid(),
});
export type BulkResultItem = z.infer<typeof bulkResultItemSchema>;
export const bulkConvertResponseSchema = z.array(bulkResultItemSchema);

// GET /conversions/get
export const getConversionResponseSchema = conversionSchema.nullable();

// POST /conversions/get
export const getConversionsBodySchema = z.object({
  conversionIds: z.array(z.string()).min(1).max(LIMITS.idsPerRequest),
});
export const getConversionsResponseSchema = z.object({ conversions: z.array(conversionSchema) });

// GET /conversions/list
export const listConversionsResponseSchema = z.object({
  conversions: z.array(conversionSchema),
  hasMore: z.boolean(),
  totalCount: z.number().int(),
});
export type ListConversionsResponse = z.infer<typeof listConversionsResponseSchema>;

// GET /healthz (docs/api.md, docs/data.md "Freshness")
export const healthDatabaseSchema = z.object({
  name: z.string(),
  kind: z.string(),
  source: z.string(),
  buildDate: z.string().nullable(),
  /** whole days since buildDate; null when it is unknown */
  ageDays: z.number().int().nullable(),
  /** older than maxAgeDays */
  stale: z.boolean(),
});
export const healthResponseSchema = z.object({
  status: z.literal("ok"),
  /** true when any database is stale */
  stale: z.boolean(),
  maxAgeDays: z.number().int(),
  databases: z.array(healthDatabaseSchema),
  update: z.object({
    source: z.enum(["dbip", "maxmind"]),
    /** the schedule of `serve`; null: off */
    everySeconds: z.number().int().nullable(),
    lastCheckAt: z.string().nullable(),
    /** null: never checked */
    lastCheckOk: z.boolean().nullable(),
  }),
});
export type HealthResponse = z.infer<typeof healthResponseSchema>;

export const PLANS = { free: 1000, starter: 10000, growth: 100000, scale: null } as const;
export const planSchema = z.enum(["free", "starter", "growth", "scale"]);
export type Plan = z.infer<typeof planSchema>;
export const planLimit = (plan: Plan): number | null => PLANS[plan];

export const KEY_PREFIX = { secret: "ipa_sk_", public: "ipa_pk_" } as const;
