/**
 * Settings from the environment and command-line flags (flags win). One place, so the server,
 * the CLI and the tests agree on names and defaults.
 */
import { resolve } from "node:path";

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";
const LOG_LEVELS: readonly LogLevel[] = ["debug", "info", "warn", "error", "silent"];
export type LogFormat = "json" | "pretty";
const LOG_FORMATS: readonly LogFormat[] = ["json", "pretty"];

export interface Config {
  dataDir: string;
  port: number;
  host: string;
  /** base URL clients reach this server at (flag URLs, curl lines); null = derived from host and port */
  publicUrl: string | null;
  /** number of proxies in front of the server whose X-Forwarded-For entries are trusted; 0 = none */
  trustProxy: number;
  /** requests per minute per (public key, client address); 0 = off */
  publicRateLimit: number;
  cityDb: string | null;
  asnDb: string | null;
  databaseUrl: string | null;
  logLevel: LogLevel;
  /** IPATLAS_LOG_FORMAT; null = pretty on a terminal, JSON otherwise */
  logFormat: LogFormat | null;
  /** one log line per request (IPATLAS_ACCESS_LOG=0 turns it off) */
  accessLog: boolean;
  /** IPATLAS_BENCH_ROUTES=1 adds the lookup-only baseline route the benchmark compares against */
  benchRoutes: boolean;
  /** how often the key cache polls storage.changeVersion() */
  keyCachePollMs: number;
  /** Prometheus metrics at /metrics (IPATLAS_METRICS=1 or serve --metrics) */
  metrics: boolean;
  /** serve /metrics on this port instead of the API port; null = the API port (required with --workers > 1: default 9464) */
  metricsPort: number | null;
  /** Bearer token /metrics asks for; null = none */
  metricsToken: string | null;
}

export interface ConfigFlags {
  dataDir?: string;
  port?: string;
  host?: string;
  metrics?: boolean;
  metricsPort?: string;
}

export class ConfigError extends Error {}

function integer(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be an integer, got "${raw}"`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function text(raw: string | undefined): string | null {
  return raw === undefined || raw.trim() === "" ? null : raw.trim();
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, flags: ConfigFlags = {}): Config {
  const logLevel = (text(env.IPATLAS_LOG_LEVEL) ?? "info").toLowerCase() as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`IPATLAS_LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got "${env.IPATLAS_LOG_LEVEL}"`);
  }
  const logFormat = text(env.IPATLAS_LOG_FORMAT)?.toLowerCase() as LogFormat | undefined;
  if (logFormat !== undefined && !LOG_FORMATS.includes(logFormat)) {
    throw new ConfigError(`IPATLAS_LOG_FORMAT must be one of ${LOG_FORMATS.join(", ")}, got "${env.IPATLAS_LOG_FORMAT}"`);
  }
  const publicUrl = text(env.IPATLAS_PUBLIC_URL);
  if (publicUrl !== null && !/^https?:\/\/[^/]+/.test(publicUrl)) {
    throw new ConfigError(`IPATLAS_PUBLIC_URL must be an http(s) URL, got "${publicUrl}"`);
  }
  return {
    dataDir: resolve(flags.dataDir ?? text(env.IPATLAS_DATA_DIR) ?? "./data"),
    port: integer(flags.port !== undefined ? "--port" : "IPATLAS_PORT", flags.port ?? env.IPATLAS_PORT, 8787, 0, 65535),
    host: flags.host ?? text(env.IPATLAS_HOST) ?? "127.0.0.1",
    publicUrl: publicUrl?.replace(/\/+$/, "") ?? null,
    trustProxy: integer("IPATLAS_TRUST_PROXY", env.IPATLAS_TRUST_PROXY, 0, 0, 100),
    publicRateLimit: integer("IPATLAS_PUBLIC_RATE_LIMIT", env.IPATLAS_PUBLIC_RATE_LIMIT, 60, 0, 1_000_000_000),
    cityDb: text(env.IPATLAS_CITY_DB),
    asnDb: text(env.IPATLAS_ASN_DB),
    databaseUrl: text(env.DATABASE_URL),
    logLevel,
    logFormat: logFormat ?? null,
    accessLog: env.IPATLAS_ACCESS_LOG !== "0",
    benchRoutes: env.IPATLAS_BENCH_ROUTES === "1",
    keyCachePollMs: integer("IPATLAS_KEY_CACHE_POLL_MS", env.IPATLAS_KEY_CACHE_POLL_MS, 50, 10, 60_000),
    metrics: flags.metrics === true || env.IPATLAS_METRICS === "1",
    metricsPort: text(flags.metricsPort ?? env.IPATLAS_METRICS_PORT) === null
      ? null
      : integer(flags.metricsPort !== undefined ? "--metrics-port" : "IPATLAS_METRICS_PORT", flags.metricsPort ?? env.IPATLAS_METRICS_PORT, 0, 0, 65535),
    metricsToken: text(env.IPATLAS_METRICS_TOKEN),
  };
}

/** The base URL to print and to build absolute links with. */
export function publicBaseUrl(config: Config, port: number): string {
  if (config.publicUrl) return config.publicUrl;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  return `http://${host === "0.0.0.0" || host === "[::]" ? "127.0.0.1" : host}:${port}`;
}
