/**
 * The storage backend a bench's server runs on, chosen as the server chooses its own: PostgreSQL
 * when a database URL is set (DATABASE_URL, else TEST_DATABASE_URL), SQLite otherwise;
 * `--backend` names one. PostgreSQL gets a fresh schema of its own, which `dispose` drops.
 */
import type { Backend } from "../test/helpers/backends.js";

/** the database URL set for the benches, if one is */
export const benchDatabaseUrl = process.env.DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;

/** the URL a PostgreSQL run uses: the one set, else the local server's test database */
export const benchPostgresUrl = benchDatabaseUrl ?? "postgres://postgres@127.0.0.1:5432/test";

export const defaultBackend: Backend["name"] = benchDatabaseUrl ? "postgres" : "sqlite";

export async function openBenchBackend(name: string): Promise<Backend> {
  if (name !== "sqlite" && name !== "postgres") throw new Error(`--backend is sqlite or postgres, not ${name}`);
  process.env.TEST_DATABASE_URL = benchPostgresUrl;
  // imported after the line above: the helper reads TEST_DATABASE_URL when it loads
  const { createBackend } = await import("../test/helpers/backends.js");
  // the server and CLI inherit this process's environment: a SQLite run must not see the URL
  if (name === "sqlite") delete process.env.DATABASE_URL;
  return createBackend(name);
}
