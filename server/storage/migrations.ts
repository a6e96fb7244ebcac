/** A versioned schema change. Each dialect has its own list; versions only ever grow. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The migrations not yet applied, in order; refuses a database newer than this code. */
export function pendingMigrations(all: Migration[], applied: number[]): Migration[] {
  const done = new Set(applied);
  const newest = Math.max(0, ...all.map((m) => m.version));
  const unknown = applied.filter((v) => v > newest);
  if (unknown.length) {
    throw new Error(`The database has schema version ${Math.max(...unknown)}, newer than this IP Atlas (${newest}); upgrade IP Atlas`);
  }
  return all.filter((m) => !done.has(m.version)).sort((a, b) => a.version - b.version);
}
