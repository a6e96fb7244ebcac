/**
 * Opens the PostgreSQL pool: validates the URL, picks the schema, and checks the server
 * answers, turning every failure into one clear sentence (no stack, no password).
 */
import pg from "pg";
import { StorageConfigError } from "../config-error.js";

export interface PostgresOptions {
  url: string;
  /** pool size per process (default 10) */
  poolSize?: number;
  /** schema for all tables (default: the URL's `?schema=`, else `public`); created if missing */
  schema?: string;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
const INT8_OID = 20;

/** bigint columns hold milliseconds and row ids, all far below 2^53: read them as numbers. */
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export interface PostgresConnection {
  pool: pg.Pool;
  schema: string;
  /** host:port/database, safe to print */
  where: string;
}

export async function connectPostgres(options: PostgresOptions): Promise<PostgresConnection> {
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw new StorageConfigError("DATABASE_URL is malformed: expected postgres://user:password@host:port/database");
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") {
    throw new StorageConfigError(`DATABASE_URL must start with postgres:// (got ${url.protocol}//)`);
  }
  const schema = options.schema ?? url.searchParams.get("schema") ?? "public";
  if (!IDENTIFIER.test(schema)) {
    throw new StorageConfigError(`Database schema "${schema}" is not a plain identifier (letters, digits, underscore)`);
  }
  url.searchParams.delete("schema");
  const poolSize = options.poolSize ?? 10;
  if (!Number.isInteger(poolSize) || poolSize < 1) {
    throw new StorageConfigError(`Database pool size must be a positive integer, got ${poolSize}`);
  }
  const where = `${url.hostname || "localhost"}:${url.port || 5432}${url.pathname}`;
  const pool = new pg.Pool({
    connectionString: url.toString(),
    max: poolSize,
    connectionTimeoutMillis: 5000,
    options: `-c search_path=${schema}`,
    types,
  });
  // An idle connection dropped by the server must not crash the process; the next query reconnects.
  pool.on("error", (error) => console.error(`PostgreSQL connection lost (${where}): ${error.message}`));
  try {
    await pool.query("SELECT 1");
  } catch (error) {
    await pool.end().catch(() => {});
    throw new StorageConfigError(`Cannot connect to PostgreSQL at ${where}: ${describe(error)}`);
  }
  return { pool, schema, where };
}

/** Node reports a refused dual-stack connect as an AggregateError with an empty message. */
function describe(error: unknown): string {
  const err = error as Error & { code?: string; errors?: Error[] };
  return err.message || err.errors?.[0]?.message || err.code || String(error);
}
