/** Checks on what a person types into the CLI or the dashboard, shared by every service. */
import { planSchema, type Plan } from "../lib/schemas/api.js";
import { ServiceError } from "./service-error.js";

const MAX_NAME = 100;

export function validName(value: unknown, what: string): string {
  const name = typeof value === "string" ? value.trim() : "";
  if (name === "") throw new ServiceError("invalid", `${what} name is required`);
  if (name.length > MAX_NAME) throw new ServiceError("invalid", `${what} name must be at most ${MAX_NAME} characters`);
  return name;
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
