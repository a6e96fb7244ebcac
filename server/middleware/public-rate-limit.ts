/**
 * Per-caller limit for public keys (docs/api.md#keys-and-origins): at most `perMinute` requests in
 * each minute for one (key, caller: the IPv4 address or the IPv6 /64); over it 429 `Too many
 * requests` with Retry-After. Secret keys are not limited here (their plan quota applies). Fixed
 * one-minute windows kept in memory; a sweep drops finished windows so the map stays small.
 */
import type { MiddlewareHandler } from "hono";
import { MESSAGES } from "../../lib/schemas/messages.js";
import { ApiError } from "./envelope.js";

export interface PublicRateLimitOptions {
  /** 0 turns the limit off */
  perMinute: number;
  windowMs?: number;
  now?: () => number;
}

export function publicRateLimit(options: PublicRateLimitOptions): MiddlewareHandler {
  const { perMinute, windowMs = 60_000, now = Date.now } = options;
  const windows = new Map<string, { start: number; count: number }>();
  let lastSweep = now();

  return async (c, next) => {
    const auth = c.get("auth");
    if (perMinute === 0 || auth?.key.kind !== "public") return next();
    const at = now();
    if (at - lastSweep > windowMs) {
      for (const [id, window] of windows) if (at - window.start >= windowMs) windows.delete(id);
      lastSweep = at;
    }
    const id = `${auth.key.id} ${c.get("clientBucket")}`;
    let window = windows.get(id);
    if (!window || at - window.start >= windowMs) {
      window = { start: at, count: 0 };
      windows.set(id, window);
    }
    window.count++;
    if (window.count > perMinute) {
      const retryAfter = Math.max(1, Math.ceil((window.start + windowMs - at) / 1000));
      throw new ApiError(429, MESSAGES.tooManyRequests, null, { "Retry-After": String(retryAfter) });
    }
    await next();
  };
}
