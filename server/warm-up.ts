/**
 * Work done once before the port opens, so the first seconds of traffic are served as fast as
 * the rest: the engine's lookups (GeoEngine.warmUp), and the request path through Hono, the
 * middlewares and the envelope, exercised with requests that need no key. Bounded in time (about
 * 0.2 s of CPU in all), so a slow machine does not start much later. Time zone formatters are
 * left to first use: ~1 ms each, within any request's budget.
 */
import type { Hono } from "hono";
import type { GeoEngine } from "./geo/types.js";
import type { AppEnv } from "./app-types.js";

export async function warmUp(app: Hono<AppEnv>, engine: GeoEngine, budgetMs = 100): Promise<void> {
  engine.warmUp(budgetMs);
  const until = performance.now() + budgetMs;
  for (let i = 0; i < 200 && performance.now() < until; i++) {
    // a 401 walks CORS, client address, key check and the error envelope; /healthz a plain answer
    await app.request(`/convert?ip=8.8.${i % 256}.8`, { headers: { "x-api-key": "ipa_sk_warm-up" } });
    await app.request("/healthz");
  }
}
