/**
 * 405 `Method not allowed` with an `Allow` header for a known path asked with a method it does not
 * serve. Runs first, so a wrong method is answered as such before any key check.
 */
import type { MiddlewareHandler } from "hono";
import { MESSAGES } from "../../lib/schemas/messages.js";
import { reply } from "./envelope.js";

export function allowedMethods(methodsByPath: Record<string, readonly string[]>): MiddlewareHandler {
  const table = new Map(
    Object.entries(methodsByPath).map(([path, methods]) => {
      const allowed = new Set(methods.map((m) => m.toUpperCase()));
      if (allowed.has("GET")) allowed.add("HEAD");
      return [path, allowed] as const;
    }),
  );
  return async (c, next) => {
    const allowed = table.get(c.req.path);
    if (allowed && !allowed.has(c.req.method)) {
      return reply(c, 405, MESSAGES.methodNotAllowed, null, { Allow: [...allowed].join(", ") });
    }
    await next();
  };
}
