/** Checks on what a person types into the CLI or the dashboard, shared by every service. */
import { displayName } from "../lib/schemas/admin.js";
import { planSchema, type Plan } from "../lib/schemas/api.js";
import { ServiceError } from "./service-error.js";

/** A project or key name by the admin API's own rule (lib/schemas/admin.ts), so the CLI takes no more. */
export function validName(value: unknown, what: string): string {
  const parsed = displayName.safeParse(typeof value === "string" ? value : "");
  if (!parsed.success) throw new ServiceError("invalid", `${what} ${parsed.error.issues[0]!.message}`);
  return parsed.data;
}

export function validPlan(value: unknown): Plan {
  const parsed = planSchema.safeParse(value);
  if (!parsed.success) throw new ServiceError("invalid", `Plan must be one of ${planSchema.options.join(", ")}`);
  return parsed.data;
}

export function validId(value: unknown, what: string): string {
  if (typeof value !== "string" || value.trim() === "") throw new ServiceError("invalid", `${what} id is required`);
  return value.trim();
}
