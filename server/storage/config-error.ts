/**
 * A storage setting that cannot work (DATABASE_URL, schema, pool size) or a database that cannot
 * be reached: the CLI prints it as one line and exits 1. In a module of its own so that naming it
 * does not load the PostgreSQL driver on SQLite.
 */
export class StorageConfigError extends Error {
  override name = "StorageConfigError";
}
