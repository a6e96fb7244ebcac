/**
 * SQLite schema. Times are integer milliseconds since the epoch; conversions keep compact
 * columns (see ../record-codec.ts) and point at deduplicated location and network rows.
 */
import type { Migration } from "../migrations.js";

/**
 * The ip_key index's first key after the project is the row's block of 2^16 row ids (migration
 * 6); searches name the same expression (./dialect.ts). Fixed by that migration: another value
 * needs a new one.
 */
export const IP_KEY_BLOCK_BITS = 16;

export const SQLITE_MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: "initial schema",
    sql: `
      CREATE TABLE projects (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        plan TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE TABLE websites (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects(id),
        origin TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        removed_at INTEGER
      );
      CREATE INDEX websites_project ON websites(project_id);
      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects(id),
        name TEXT NOT NULL,
        kind TEXT NOT NULL,
        hash TEXT NOT NULL UNIQUE,
        prefix TEXT NOT NULL,
        website_id TEXT,
        created_at INTEGER NOT NULL,
        last_used_at INTEGER,
        revoked_at INTEGER
      );
      CREATE INDEX api_keys_project ON api_keys(project_id);
      CREATE TABLE change_counter (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
      INSERT INTO change_counter (id, version) VALUES (1, 0);
      CREATE TABLE usage (
        project INTEGER NOT NULL,
        period TEXT NOT NULL,
        used INTEGER NOT NULL,
        PRIMARY KEY (project, period)
      ) WITHOUT ROWID;
      CREATE TABLE locations (id INTEGER PRIMARY KEY, hash BLOB NOT NULL UNIQUE, json TEXT NOT NULL);
      CREATE TABLE networks (id INTEGER PRIMARY KEY, hash BLOB NOT NULL UNIQUE, json TEXT NOT NULL);
      CREATE TABLE conversions (
        id INTEGER PRIMARY KEY,
        project INTEGER NOT NULL,
        unique_id BLOB NOT NULL,
        status INTEGER NOT NULL,
        ip TEXT,
        ip_key BLOB,
        started_at INTEGER NOT NULL,
        completed_ms INTEGER,
        created_ms INTEGER NOT NULL,
        location INTEGER,
        network INTEGER,
        tz_offset INTEGER,
        time_shift INTEGER NOT NULL,
        completion_us INTEGER,
        extra TEXT
      );
      CREATE UNIQUE INDEX conversions_unique_id ON conversions(unique_id);
      CREATE INDEX conversions_project ON conversions(project);
      CREATE INDEX conversions_ip_text ON conversions(project, lower(ip));
      CREATE INDEX conversions_ip_key ON conversions(project, ip_key);
    `,
  },
  {
    version: 2,
    name: "ip column folded to lower case, plain index for prefix search",
    // The original text of a mixed-case (invalid) input moves to extra.i; rows kept whole in
    // extra.d already have it.
    sql: `
      UPDATE conversions SET extra = json_set(COALESCE(extra, '{}'), '$.i', ip)
        WHERE ip <> lower(ip) AND (extra IS NULL OR json_extract(extra, '$.d') IS NULL);
      UPDATE conversions SET ip = lower(ip) WHERE ip <> lower(ip);
      DROP INDEX conversions_ip_text;
      CREATE INDEX conversions_ip_text ON conversions(project, ip);
    `,
  },
  {
    version: 3,
    name: "prefix search on the ip_key index; text index only for rows without a key",
    // Addresses arrive in random order, so each random-order index costs every inserted row a
    // write to a random leaf page. Prefix search now runs on ip_key ranges (../ip-prefix.ts);
    // only invalid inputs (no key) still need their text indexed.
    sql: `
      DROP INDEX conversions_ip_text;
      CREATE INDEX conversions_ip_unkeyed ON conversions(project, ip) WHERE ip_key IS NULL;
    `,
  },
  {
    version: 4,
    name: "conversion ids counted per project",
    // The public id was the table's rowid, one counter for every tenant: a project could read
    // how busy the others are from the gaps. projects.conversions hands out ids per project.
    sql: `
      ALTER TABLE projects ADD COLUMN conversions INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE conversions ADD COLUMN seq INTEGER;
      UPDATE conversions SET seq = r.n
        FROM (SELECT id, row_number() OVER (PARTITION BY project ORDER BY id) AS n FROM conversions) AS r
        WHERE r.id = conversions.id;
      UPDATE projects SET conversions = (SELECT count(*) FROM conversions c WHERE c.project = projects.seq);
    `,
  },
  {
    version: 5,
    name: "bulks written in pieces",
    // A bulk may be written in several transactions (./dialect.ts, YIELDING_ROWS); while it is
    // open its quota is held here, its rows (seq first_seq.., id first_id..) are hidden, and
    // owner (pid:token) tells whether the server writing it is still alive.
    sql: `
      CREATE TABLE open_bulks (
        id INTEGER PRIMARY KEY,
        project INTEGER NOT NULL,
        period TEXT NOT NULL,
        rows INTEGER NOT NULL,
        first_seq INTEGER NOT NULL,
        first_id INTEGER NOT NULL,
        owner TEXT NOT NULL,
        started_at INTEGER NOT NULL
      );
      CREATE INDEX open_bulks_project ON open_bulks(project, period);
    `,
  },
  {
    version: 6,
    name: "ip_key index in blocks of row ids",
    // SQLite's WAL holds whole pages, and random addresses put each new row's key on a random
    // leaf of the ip_key index: a bulk dirtied one index page per row. Keyed by the row's block
    // first, new keys land among the few hundred leaves of the newest block; a search seeks once
    // per block (docs/storage.md "The ip_key index in blocks of row ids").
    sql: `
      DROP INDEX conversions_ip_key;
      CREATE INDEX conversions_ip_key ON conversions(project, id >> ${IP_KEY_BLOCK_BITS}, ip_key);
    `,
  },
];
