/**
 * Guards the admin API: a live session cookie on every route, and on every mutation the
 * session's CSRF token in a header plus a same-origin check. SameSite=Strict already keeps the
 * cookie off cross-site requests; the token and the Origin check hold where a browser does not.
 */
import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { ADMIN_MESSAGES, CSRF_HEADER, SESSION_COOKIE } from "../../lib/schemas/admin.js";
import { ApiError } from "../middleware/envelope.js";
import { secretsEqual, type AdminSession, type SessionStore } from "./sessions.js";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export interface SameOriginOptions {
  /** IPATLAS_PUBLIC_URL: the origin the dashboard is served at when it differs from Host */
  publicUrl?: string | null;
  /** with proxies in front, their X-Forwarded-Proto says whether the browser used https */
  trustProxy?: number;
}

/** The origins this request may come from: scheme, host and port of the server as the browser sees it. */
function ownOrigins(c: Context, options: SameOriginOptions): Set<string> {
  const origins = new Set<string>();
  if (options.publicUrl) origins.add(new URL(options.publicUrl).origin);
  const url = new URL(c.req.url);
  origins.add(url.origin);
  const forwardedProto = (options.trustProxy ?? 0) > 0 ? c.req.header("x-forwarded-proto")?.split(",").at(-1)?.trim().toLowerCase() : undefined;
  if (forwardedProto === "https" || forwardedProto === "http") {
    const host = c.req.header("host") ?? url.host;
    try {
      origins.add(new URL(`${forwardedProto}://${host}`).origin);
    } catch {
      // a Host that is not a host adds nothing
    }
  }
  return origins;
}

/** Refuses a request that a browser marks as coming from another site or origin (scheme, host and port). */
export function assertSameOrigin(c: Context, options: SameOriginOptions = {}): void {
  const site = c.req.header("sec-fetch-site");
  if (site && site !== "same-origin" && site !== "none") throw new ApiError(403, ADMIN_MESSAGES.crossOrigin);
  const origin = c.req.header("origin");
  if (origin === undefined) return;
  if (!ownOrigins(c, options).has(origin.toLowerCase())) throw new ApiError(403, ADMIN_MESSAGES.crossOrigin);
}

/** the live session of this request's cookie, or null */
export function currentSession(c: Context, sessions: SessionStore): { id: string; session: AdminSession } | null {
  const id = getCookie(c, SESSION_COOKIE);
  const session = sessions.read(id);
  return session && id ? { id, session } : null;
}

export function sessionGuard(sessions: SessionStore, sameOrigin: SameOriginOptions = {}): MiddlewareHandler {
  return async (c, next) => {
    const current = currentSession(c, sessions);
    if (!current) throw new ApiError(401, ADMIN_MESSAGES.signInRequired);
    const { session } = current;
    if (!SAFE_METHODS.has(c.req.method)) {
      assertSameOrigin(c, sameOrigin);
      const token = c.req.header(CSRF_HEADER) ?? "";
      if (!secretsEqual(token, session.csrfToken)) throw new ApiError(403, ADMIN_MESSAGES.csrfRejected);
    }
    await next();
  };
}
