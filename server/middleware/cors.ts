/**
 * CORS for the key-protected API routes (docs/api.md#keys-and-origins). A preflight answers 204
 * without a key. An answer to an accepted public-key request names its Origin and exposes
 * `exposeHeaders` (the headers a browser client reads, which the app names); secret-key answers
 * carry no Access-Control-Allow-Origin (browsers must not use secret keys).
 */
import type { MiddlewareHandler } from "hono";
import { isSerializedOrigin } from "../../lib/origin/index.js";

export interface CorsOptions {
  allowMethods?: string[];
  allowHeaders?: string[];
  maxAgeSeconds?: number;
  /** response headers a browser script may read; none by default */
  exposeHeaders?: readonly string[];
}

export function apiCors(options: CorsOptions = {}): MiddlewareHandler {
  const allowMethods = (options.allowMethods ?? ["GET", "POST", "OPTIONS"]).join(", ");
  const allowHeaders = (options.allowHeaders ?? ["x-api-key", "content-type"]).join(", ");
  const maxAge = String(options.maxAgeSeconds ?? 7200);
  const expose = (options.exposeHeaders ?? []).join(", ");

  return async (c, next) => {
    const origin = c.req.header("origin");
    if (c.req.method === "OPTIONS") {
      const headers = new Headers({
        "Access-Control-Allow-Methods": allowMethods,
        "Access-Control-Allow-Headers": allowHeaders,
        "Access-Control-Max-Age": maxAge,
        Vary: "Origin",
      });
      // a preflight grants nothing by itself (the key and its origin are checked on the request);
      // only a well-formed origin is named back
      if (isSerializedOrigin(origin)) headers.set("Access-Control-Allow-Origin", origin!);
      return new Response(null, { status: 204, headers });
    }
    await next();
    // c.var.auth is set only once the key (and for a public key, its Origin) was accepted
    if (origin && c.get("auth")?.key.kind === "public") {
      c.res.headers.set("Access-Control-Allow-Origin", origin);
      if (expose) c.res.headers.set("Access-Control-Expose-Headers", expose);
      c.res.headers.append("Vary", "Origin");
    }
  };
}
