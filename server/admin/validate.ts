/** Parses admin API input with the lib/ schemas; the first problem becomes a 400 that names it. */
import type { z } from "zod";
import { ApiError } from "../middleware/envelope.js";
import { ServiceError } from "../services/index.js";

export function parseInput<T extends z.ZodType>(schema: T, value: unknown, what = "Request body"): z.infer<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  // a body that is not an object at all gets zod's generic text otherwise
  const notAnObject = issue.path.length === 0 && issue.code === "invalid_type" && issue.expected === "object";
  throw new ApiError(400, notAnObject ? `${what} must be a JSON object` : issue.message);
}

/** Runs a service call; its refusals become 400 (invalid) or 404 (not found) with its message. */
export async function fromService<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ServiceError) throw new ApiError(error.kind === "invalid" ? 400 : 404, error.message);
    throw error;
  }
}
