/**
 * The request a server-side client sends in a loop, answered straight on node:http:
 * `GET /convert` (and `/bench/lookup` when mounted) with a secret key, `ip` absent or written with
 * address characters only, no other query parameter and no Origin. Hono's
 * Request and Response objects and the middleware chain cost as much CPU as the lookup itself
 * (docs/architecture.md "A request's path"); this path skips them and makes the same answer from the
 * same parts: the converter, `answerLanguage`, `envelopeText`, `quotaHeaderValues`,
 * `clientAddress`, the key cache, the access log line and the metrics.
 *
 * Anything else, and any request whose key is not an accepted secret key, goes on to the Hono app
 * before anything is stored: refusals, CORS, languages, HEAD and odd
 * spellings (`lang=`, percent-escapes) are made in one place only. fast-get.test.ts checks that both paths answer alike.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { MESSAGES } from "../../lib/schemas/messages.js";
import type { AppDeps } from "../app-types.js";
import { envelopeText } from "../middleware/envelope.js";
import { API_VERSION } from "../middleware/request-id.js";
import { clientAddress } from "../middleware/client-ip.js";
import { headerBytes, writeAccessLine } from "../middleware/access-log.js";
import { API_ROUTES } from "../routes/api-routes.js";
import { benchAnswer } from "../routes/bench.js";
import { quotaHeaderValues } from "./quota-headers.js";
import { answerLanguage } from "./routes.js";
import type { OneAnswer } from "./converter.js";
import type { KeyAuth } from "../storage/types.js";

export interface FastGet {
  /** answers the request, or calls `next` (the Hono app) having changed nothing */
  handle(req: IncomingMessage, res: ServerResponse, next: () => void): void;
  /** requests answered here so far (tests and benches check the path is taken) */
  readonly answered: number;
}

/** the whole query string this path takes: nothing, or `ip=` and address characters */
const PLAIN_QUERY = /^(?:ip=[0-9A-Za-z.:]*)?$/;

/** GET /convert's answer (converter.ts), or /bench/lookup's, which stores nothing */
type Answer = Omit<OneAnswer, "quota" | "stored"> & { stored?: number };

export function createFastGet(deps: AppDeps): FastGet {
  const { config, keys, converter, engine, log, metrics } = deps;
  const convertPath = API_ROUTES.convert.path;
  const benchPath = config.benchRoutes ? API_ROUTES.benchLookup.path : null;
  let answered = 0;

  const convertAnswer = async (auth: KeyAuth, input: string, acceptLanguage: string | undefined): Promise<Answer> => {
    const language = answerLanguage(undefined, acceptLanguage, true);
    const one = await converter.one(auth.project, input, language.lang);
    const [sourcesName, sources] = converter.sourcesHeader();
    const headers = { ...language.headers, [sourcesName]: sources, ...one.headers, ...quotaHeaderValues(one.quota) };
    return { status: one.status, message: one.message, dataJson: one.dataJson, headers, stored: one.stored };
  };

  const answer = async (req: IncomingMessage, res: ServerResponse, route: string, ip: string | undefined, auth: KeyAuth, clientIp: string) => {
    const startedAt = performance.now();
    const reqId = randomUUID();
    let made: Answer;
    try {
      const input = ip === undefined || ip === "" ? clientIp : ip;
      made = route === convertPath ? await convertAnswer(auth, input, req.headers["accept-language"]) : { ...(await benchAnswer(engine, input)), headers: {} };
    } catch (error) {
      log.error("request failed", { reqId, method: "GET", path: route, error });
      made = { status: 500, message: MESSAGES.internal, dataJson: "null", headers: {} };
    }
    const body = envelopeText(made.status, made.message, made.dataJson, reqId, startedAt);
    const sentBefore = res.socket?.bytesWritten ?? 0;
    res.writeHead(made.status, {
      "content-type": "application/json",
      "x-request-id": reqId,
      "x-api-version": API_VERSION,
      ...made.headers,
      "content-length": Buffer.byteLength(body),
    });
    res.end(body);
    answered++;
    metrics?.observe({ method: "GET", route, status: made.status, startedAt, conversionsStored: made.stored, refusal: made.status === 429 ? "quota" : undefined });
    if (config.accessLog) {
      writeAccessLine(log, {
        reqId,
        method: "GET",
        route,
        path: route,
        status: made.status,
        durationMs: Math.round((performance.now() - startedAt) * 1000) / 1000,
        projectId: auth.project.id,
        keyId: auth.key.id,
        clientIp,
        bytesIn: headerBytes(req.headers["content-length"]),
        // written synchronously on a writable socket, else still counted as queued by Node
        bytesOut: res.socket ? res.socket.bytesWritten - sentBefore : null,
      });
    }
  };

  return {
    get answered() {
      return answered;
    },
    handle(req, res, next) {
      if (req.method !== "GET") return next();
      const url = req.url ?? "";
      const q = url.indexOf("?");
      const path = q === -1 ? url : url.slice(0, q);
      if (path !== convertPath && path !== benchPath) return next();
      const query = q === -1 ? "" : url.slice(q + 1);
      if (!PLAIN_QUERY.test(query)) return next();
      const headers = req.headers;
      if (headers.origin !== undefined) return next();
      const key = headers["x-api-key"];
      const value = typeof key === "string" ? key.trim() : "";
      if (!value.startsWith("ipa_sk_")) return next();
      const xff = headers["x-forwarded-for"];
      const clientIp = clientAddress(req.socket.remoteAddress ?? "", Array.isArray(xff) ? xff.join(", ") : xff, config.trustProxy, config.limits.maxForwardedForBytes);
      if (clientIp === null) return next();
      const ip = query === "" ? undefined : query.slice(3);
      keys.authenticate(value).then(
        (auth) => (auth?.key.kind === "secret" ? answer(req, res, path, ip, auth, clientIp) : next()),
        () => next(),
      );
    },
  };
}
