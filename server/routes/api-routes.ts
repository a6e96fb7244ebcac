/**
 * The API's paths (docs/api.md), each with the methods it serves: one table that app.ts mounts
 * the middlewares and the 405 check from, and that each route file registers its handlers on.
 * A new API endpoint starts here.
 */
export const API_ROUTES = {
  convert: { path: "/convert", methods: ["GET", "POST", "OPTIONS"] },
  getConversions: { path: "/conversions/get", methods: ["GET", "POST", "OPTIONS"] },
  listConversions: { path: "/conversions/list", methods: ["GET", "OPTIONS"] },
  health: { path: "/healthz", methods: ["GET"] },
  /** mounted only with IPATLAS_BENCH_ROUTES=1 */
  benchLookup: { path: "/bench/lookup", methods: ["GET", "OPTIONS"] },
} as const;

export type ApiRoute = (typeof API_ROUTES)[keyof typeof API_ROUTES];

/** Routes as the allowedMethods middleware takes them: path → methods. */
export function methodsByPath(routes: readonly ApiRoute[]): Record<string, readonly string[]> {
  return Object.fromEntries(routes.map((route) => [route.path, route.methods]));
}
