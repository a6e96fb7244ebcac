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

/** Refuses a request that a browser marks as coming from another site or origin. */
export function assertSameOrigin(c: Context): void {
  const site = c.req.header("sec-fetch-site");
  if (site && site !== "same-origin" && site !== "none") throw new ApiError(403, ADMIN_MESSAGES.crossOrigin);
  const origin = c.req.header("origin");
  if (!origin) return;
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    throw new ApiError(403, ADMIN_MESSAGES.crossOrigin);
  }
  const host = c.req.header("host") ?? new URL(c.req.url).host;
  if (originHost.toLowerCase() !== host.toLowerCase()) throw new ApiError(403, ADMIN_MESSAGES.crossOrigin);
}

/** the live session of this request's cookie, or null */
export function currentSession(c: Context, sessions: SessionStore): { id: string; session: AdminSession } | null {
  const id = getCookie(c, SESSION_COOKIE);
  const session = sessions.read(id);
  return session && id ? { id, session } : null;
}

export function sessionGuard(sessions: SessionStore): MiddlewareHandler {
  return async (c, next) => {
    const current = currentSession(c, sessions);
    if (!current) throw new ApiError(401, ADMIN_MESSAGES.signInRequired);
    const { session } = current;
    if (!SAFE_METHODS.has(c.req.method)) {
      assertSameOrigin(c);
      const token = c.req.header(CSRF_HEADER) ?? "";
      if (!secretsEqual(token, session.csrfToken)) throw new ApiError(403, ADMIN_MESSAGES.csrfRejected);
    }
    await next();
  };
}
