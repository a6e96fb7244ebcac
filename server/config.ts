/**
 * Settings from the environment and command-line flags (flags win). One place, so the server,
 * the CLI and the tests agree on names and defaults.
 */
import { resolve } from "node:path";
import { loadUpdateSettings, UpdateSettingsError, type UpdateSettings } from "./geo/update/settings.js";
import { parseCidr } from "../lib/ip/index.js";

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
  /** PostgreSQL connections per process (IPATLAS_DB_POOL) */
  dbPool: number;
  /** PostgreSQL schema (IPATLAS_DB_SCHEMA); null = the URL's `?schema=`, else `public` */
  dbSchema: string | null;
  /** SQLite: conversions written on a thread of their own, off the event loop (IPATLAS_SQLITE_WRITER_THREAD=0 turns it off) */
  sqliteWriterThread: boolean;
  /** SQLite: the list's counts and pages read on a thread of their own, off the event loop (IPATLAS_SQLITE_READER_THREAD=0 turns it off) */
  sqliteReaderThread: boolean;
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
  /** data updates and freshness (server/geo/update/settings.ts) */
  update: UpdateSettings;
  /** what one client can hold of the server (docs/security.md) */
  limits: ServerLimits;
}

/** Bounds on what one client can make the server hold; every one has a variable (docs/security.md). */
export interface ServerLimits {
  /** time to receive a request's headers; Node's headersTimeout */
  headersTimeoutMs: number;
  /** time to receive a whole request, body included; Node's requestTimeout */
  requestTimeoutMs: number;
  /** an idle kept-alive connection is closed after this; Node's keepAliveTimeout */
  keepAliveTimeoutMs: number;
  /** total size of a request's headers; Node's maxHeaderSize */
  maxHeaderBytes: number;
  /** X-Forwarded-For longer than this is refused (only read with trustProxy >= 1) */
  maxForwardedForBytes: number;
  /** open connections per peer address; 0 = no limit */
  maxConnectionsPerAddress: number;
  /** peers the connection limit does not count (CIDR ranges) */
  connectionLimitExempt: string[];
  /** admin sign-ins waiting per client address; one more is answered 429 at once */
  signInQueuePerAddress: number;
}

export interface ConfigFlags {
  dataDir?: string;
  port?: string;
  host?: string;
  metrics?: boolean;
  metricsPort?: string;
  updateEvery?: string;
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
  const trustProxy = integer("IPATLAS_TRUST_PROXY", env.IPATLAS_TRUST_PROXY, 0, 0, 100);
  return {
    dataDir: resolve(flags.dataDir ?? text(env.IPATLAS_DATA_DIR) ?? "./data"),
    port: integer(flags.port !== undefined ? "--port" : "IPATLAS_PORT", flags.port ?? env.IPATLAS_PORT, 8787, 0, 65535),
    host: flags.host ?? text(env.IPATLAS_HOST) ?? "127.0.0.1",
    publicUrl: publicUrl?.replace(/\/+$/, "") ?? null,
    trustProxy,
    publicRateLimit: integer("IPATLAS_PUBLIC_RATE_LIMIT", env.IPATLAS_PUBLIC_RATE_LIMIT, 60, 0, 1_000_000_000),
    cityDb: text(env.IPATLAS_CITY_DB),
    asnDb: text(env.IPATLAS_ASN_DB),
    databaseUrl: text(env.DATABASE_URL),
    dbPool: integer("IPATLAS_DB_POOL", env.IPATLAS_DB_POOL, 10, 1, 1000),
    dbSchema: text(env.IPATLAS_DB_SCHEMA),
    sqliteWriterThread: env.IPATLAS_SQLITE_WRITER_THREAD !== "0",
    sqliteReaderThread: env.IPATLAS_SQLITE_READER_THREAD !== "0",
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
    update: updateSettings(env, flags),
    limits: loadLimits(env, trustProxy),
  };
}

const LOOPBACK = ["127.0.0.0/8", "::1/128"];

function loadLimits(env: NodeJS.ProcessEnv, trustProxy: number): ServerLimits {
  const exempt = text(env.IPATLAS_CONNECTION_LIMIT_EXEMPT);
  const connectionLimitExempt = exempt === null ? LOOPBACK : exempt === "none" ? [] : exempt.split(",").map((range) => range.trim());
  for (const range of connectionLimitExempt) {
    if (!parseCidr(range)) throw new ConfigError(`IPATLAS_CONNECTION_LIMIT_EXEMPT must list CIDR ranges (or be "none"), got "${range}"`);
  }
  const limits: ServerLimits = {
    headersTimeoutMs: integer("IPATLAS_HEADERS_TIMEOUT_MS", env.IPATLAS_HEADERS_TIMEOUT_MS, 20_000, 1_000, 600_000),
    requestTimeoutMs: integer("IPATLAS_REQUEST_TIMEOUT_MS", env.IPATLAS_REQUEST_TIMEOUT_MS, 60_000, 1_000, 3_600_000),
    keepAliveTimeoutMs: integer("IPATLAS_KEEP_ALIVE_TIMEOUT_MS", env.IPATLAS_KEEP_ALIVE_TIMEOUT_MS, 5_000, 100, 600_000),
    maxHeaderBytes: integer("IPATLAS_MAX_HEADER_BYTES", env.IPATLAS_MAX_HEADER_BYTES, 16_384, 1_024, 1_048_576),
    maxForwardedForBytes: integer("IPATLAS_MAX_FORWARDED_FOR_BYTES", env.IPATLAS_MAX_FORWARDED_FOR_BYTES, 1_024, 64, 1_048_576),
    // behind a proxy every connection comes from the proxy, so the limit would count the proxy
    maxConnectionsPerAddress: integer("IPATLAS_MAX_CONNECTIONS_PER_ADDRESS", env.IPATLAS_MAX_CONNECTIONS_PER_ADDRESS, trustProxy > 0 ? 0 : 256, 0, 1_000_000),
    connectionLimitExempt,
    signInQueuePerAddress: integer("IPATLAS_SIGN_IN_QUEUE", env.IPATLAS_SIGN_IN_QUEUE, 3, 1, 1_000),
  };
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new ConfigError("IPATLAS_HEADERS_TIMEOUT_MS must not be longer than IPATLAS_REQUEST_TIMEOUT_MS");
  }
  return limits;
}

function updateSettings(env: NodeJS.ProcessEnv, flags: ConfigFlags): UpdateSettings {
  try {
    return loadUpdateSettings(env, { updateEvery: flags.updateEvery });
  } catch (error) {
    if (error instanceof UpdateSettingsError) throw new ConfigError(error.message);
    throw error;
  }
}

/** The base URL to print and to build absolute links with. */
export function publicBaseUrl(config: Config, port: number): string {
  if (config.publicUrl) return config.publicUrl;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  return `http://${host === "0.0.0.0" || host === "[::]" ? "127.0.0.1" : host}:${port}`;
}
