/**
 * CORS for the API routes (contract §5). A preflight answers 204 without a key. An answer to an
 * accepted public-key request names its Origin and exposes the headers a browser client reads;
 * secret-key answers carry no Access-Control-Allow-Origin (browsers must not use secret keys).
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-types.js";
import { QUOTA_HEADERS } from "../convert/quota-headers.js";
import { DATA_SOURCES_HEADER } from "../../lib/schemas/data-sources.js";
import { isSerializedOrigin } from "../../lib/origin/index.js";

export interface CorsOptions {
  allowMethods?: string[];
  allowHeaders?: string[];
  maxAgeSeconds?: number;
  exposeHeaders?: string[];
}

export function apiCors(options: CorsOptions = {}): MiddlewareHandler<AppEnv> {
  const allowMethods = (options.allowMethods ?? ["GET", "POST", "OPTIONS"]).join(", ");
  const allowHeaders = (options.allowHeaders ?? ["x-api-key", "content-type"]).join(", ");
  const maxAge = String(options.maxAgeSeconds ?? 7200);
  const expose = (options.exposeHeaders ?? [...QUOTA_HEADERS, "Retry-After", "x-request-id", "x-conversion-id", DATA_SOURCES_HEADER]).join(", ");

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
      c.res.headers.set("Access-Control-Expose-Headers", expose);
      c.res.headers.append("Vary", "Origin");
    }
  };
}
