// One import point for the wire schemas the dashboard uses (they live in lib/, shared with the server).
export * from "../../lib/schemas/admin.js";
export { conversionStatusSchema, planSchema, PLANS, type Plan, type Conversion, type ConversionStatus } from "../../lib/schemas/api.js";
export type { IpObject } from "../../lib/schemas/ip-object.js";
