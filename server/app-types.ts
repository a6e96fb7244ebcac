/** What every route receives: the server's parts, made once at start (serve.ts). */
import type { GeoEngine } from "./geo/types.js";
import type { BlankEnv } from "hono/types";
import type { Storage } from "./storage/types.js";
import type { Config } from "./config.js";
import type { KeyService } from "./keys/auth-cache.js";
import type { AdminServices } from "./services/index.js";
import type { Logger } from "./logger.js";
import type { Metrics } from "./metrics/metrics.js";
import type { Converter } from "./convert/converter.js";

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
  /** one address converted, stored and answered; shared by the convert routes and the fast GET path */
  converter: Converter;
  /** set when metrics are on (config.metrics) */
  metrics?: Metrics;
}

/**
 * The app's Hono environment. Each middleware declares the context variables it sets beside
 * itself (`declare module "hono" { interface ContextVariableMap … }`), as Hono's own do.
 */
export type AppEnv = BlankEnv;
