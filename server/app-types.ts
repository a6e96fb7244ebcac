/**
 * What every route and middleware receives. The API issue (#3) fills in Config and the
 * key service; the widget (#5) and dashboard (#7) routes take the same AppDeps.
 */
import type { GeoEngine } from "./geo/types.js";
import type { KeyAuth, Storage } from "./storage/types.js";
import type { Config } from "./config.js";
import type { KeyService } from "./keys/key-service.js";
import type { AdminServices } from "./services/index.js";
import type { Logger } from "./middleware/logger.js";
import type { QuotaState } from "./middleware/quota-headers.js";
import type { Metrics } from "./metrics/metrics.js";

export interface AppDeps {
  storage: Storage;
  engine: GeoEngine;
  /** resolved settings (server/config.ts) */
  config: Config;
  /** key authentication with its in-memory cache */
  keys: KeyService;
  /** project / key / website operations shared by the CLI and the admin API */
  services: AdminServices;
  log: Logger;
  /** set when metrics are on (config.metrics) */
  metrics?: Metrics;
}

/** Hono context variables set by the middlewares (request id, authenticated key, ...). */
export type AppEnv = {
  Variables: {
    reqId: string;
    /** performance.now() when the request arrived, for `_req.resTime` */
    startedAt: number;
    /** set by key auth on API routes */
    auth: KeyAuth;
    /** the caller's address (socket, or X-Forwarded-For with IPATLAS_TRUST_PROXY) */
    clientIp: string;
    /** a POST body parsed by the json-body middleware */
    jsonBody: unknown;
    /** plan usage after a convert request, for the X-RateLimit-* headers */
    quota: QuotaState;
    /** conversions a convert request stored, for the metrics */
    conversionsStored: number;
  };
};
