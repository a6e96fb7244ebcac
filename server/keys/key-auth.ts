/**
 * `x-api-key` authentication (docs/api.md#keys-and-origins): 401 `Missing API key` / `Invalid API
 * key`; a public key is valid only with an Origin its website's pattern allows (401 `Origin not
 * allowed for this key`, a missing Origin included; `data.origin` names the refused Origin and
 * the answer is CORS-readable by it). Sets `c.var.auth`.
 */
import type { MiddlewareHandler } from "hono";
import { originAllowed } from "../../lib/origin/index.js";
import { MESSAGES } from "../../lib/schemas/messages.js";
import type { KeyAuth } from "../storage/types.js";
import type { KeyService } from "./auth-cache.js";
import { ApiError } from "../middleware/envelope.js";

declare module "hono" {
  interface ContextVariableMap {
    /** the accepted key, its project (and website for a public key) */
    auth: KeyAuth;
  }
}

export interface KeyAuthOptions {
  keys: KeyService;
  header?: string;
}

export function keyAuth(options: KeyAuthOptions): MiddlewareHandler {
  const header = options.header ?? "x-api-key";
  return async (c, next) => {
    const value = c.req.header(header)?.trim();
    if (!value) throw new ApiError(401, MESSAGES.missingKey);
    const auth = await options.keys.authenticate(value);
    if (!auth) throw new ApiError(401, MESSAGES.invalidKey);
    if (auth.key.kind === "public") {
      const origin = c.req.header("origin");
      if (!auth.website || !originAllowed(auth.website.origin, origin)) {
        // Readable by the refused page (no data leaks: the key is valid, the origin is not), so
        // the widget can name the origin to register instead of showing a bare CORS failure.
        const readable: Record<string, string> = origin && origin !== "null" ? { "access-control-allow-origin": origin, vary: "Origin" } : {};
        throw new ApiError(401, MESSAGES.originNotAllowed, { origin: origin ?? null }, readable);
      }
    }
    c.set("auth", auth);
    await next();
  };
}
