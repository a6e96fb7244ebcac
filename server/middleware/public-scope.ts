/** Public keys may only convert (docs/api.md#keys-and-origins): anywhere else they get 403. Mount after key auth. */
import type { MiddlewareHandler } from "hono";
import { MESSAGES } from "../../lib/schemas/messages.js";
import { ApiError } from "./envelope.js";

export function secretKeyOnly(): MiddlewareHandler {
  return async (c, next) => {
    if (c.get("auth").key.kind === "public") throw new ApiError(403, MESSAGES.publicKeyForbidden);
    await next();
  };
}
