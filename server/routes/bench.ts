/**
 * GET /bench/lookup: the baseline bench/api.ts compares GET /convert against. Same key check and
 * envelope, the same engine lookup, the answer written at the same point of the event loop's turn
 * (its end), but nothing stored or counted. Mounted only with
 * IPATLAS_BENCH_ROUTES=1; plain requests are answered by the fast GET path (convert/fast-get.ts)
 * from the same `benchAnswer`.
 */
import { Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { MESSAGES } from "../../lib/schemas/messages.js";
import type { AppDeps, AppEnv } from "../app-types.js";
import type { GeoEngine } from "../geo/types.js";
import { replyJsonText } from "../middleware/envelope.js";
import { API_ROUTES } from "./api-routes.js";
import { turnEnd } from "../turn-end.js";

/**
 * The lookup's answer, ready at the turn's end: GET /convert's comes after its group's commit,
 * which is then, so that this route measures the stored one minus the storing (turn-end.ts).
 */
export async function benchAnswer(engine: GeoEngine, input: string): Promise<{ status: ContentfulStatusCode; message: string; dataJson: string }> {
  const result = engine.convert(input, new Date());
  const answer =
    result.status === "invalid-ip-address"
      ? { status: 400 as const, message: MESSAGES.invalidIp, dataJson: "null" }
      : { status: 200 as const, message: MESSAGES.success, dataJson: result.status === "success" ? engine.toJson(result) : "null" };
  await turnEnd();
  return answer;
}

export function benchRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get(API_ROUTES.benchLookup.path, async (c) => {
    const answer = await benchAnswer(deps.engine, c.req.query("ip") || c.get("clientIp"));
    return replyJsonText(c, answer.status, answer.message, answer.dataJson);
  });
  return app;
}
