/**
 * PostgreSQL schema: the same tables and compact columns as SQLite (../sqlite/migrations.ts),
 * with columns ordered widest first so rows pack without alignment padding, `ip` in the "C"
 * collation so prefix search compares bytes as SQLite does, and times as bigint milliseconds.
 */
import type { Migration } from "../migrations.js";

/** the ip_key index orders keys by the row's block of 2^16 ids first (migration 6): fixed by that migration's SQL */
export const IP_KEY_BLOCK_BITS = 16;

export const POSTGRES_MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: "initial schema",
    sql: `
      CREATE TABLE projects (
        id text PRIMARY KEY,
        seq integer GENERATED ALWAYS AS IDENTITY UNIQUE,
        name text NOT NULL,
        plan text NOT NULL,
        created_at bigint NOT NULL
      );
      CREATE TABLE websites (
        id text PRIMARY KEY,
        project_id text NOT NULL REFERENCES projects(id),
        origin text NOT NULL,
        created_at bigint NOT NULL,
        removed_at bigint
      );
      CREATE INDEX websites_project ON websites(project_id);
      CREATE TABLE api_keys (
        id text PRIMARY KEY,
        project_id text NOT NULL REFERENCES projects(id),
        name text NOT NULL,
        kind text NOT NULL,
        hash text NOT NULL UNIQUE,
        prefix text NOT NULL,
        website_id text,
        created_at bigint NOT NULL,
        last_used_at bigint,
        revoked_at bigint
      );
      CREATE INDEX api_keys_project ON api_keys(project_id);
      CREATE TABLE change_counter (id integer PRIMARY KEY CHECK (id = 1), version bigint NOT NULL);
      INSERT INTO change_counter (id, version) VALUES (1, 0);
      CREATE TABLE usage (
        project integer NOT NULL,
        period text NOT NULL,
        used integer NOT NULL,
        PRIMARY KEY (project, period)
      );
      CREATE TABLE locations (id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY, hash bytea NOT NULL UNIQUE, json text NOT NULL);
      CREATE TABLE networks (id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY, hash bytea NOT NULL UNIQUE, json text NOT NULL);
      CREATE TABLE conversions (
        -- no primary-key index: rows are reached by unique_id or (project, id), which are indexed
        id bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
        started_at bigint NOT NULL,
        completion_us bigint,
        unique_id uuid NOT NULL,
        project integer NOT NULL,
        location integer,
        network integer,
        completed_ms integer,
        created_ms integer NOT NULL,
        time_shift integer NOT NULL,
        status smallint NOT NULL,
        tz_offset smallint,
        ip text COLLATE "C",
        ip_key bytea,
        extra text
      );
      CREATE UNIQUE INDEX conversions_unique_id ON conversions(unique_id);
      CREATE INDEX conversions_project ON conversions(project, id);
      CREATE INDEX conversions_ip_text ON conversions(project, lower(ip));
      CREATE INDEX conversions_ip_key ON conversions(project, ip_key);
    `,
  },
  {
    version: 2,
    name: "ip column folded to lower case, plain index for prefix search",
    // As in SQLite. A plain column index (unlike one on lower(ip)) allows index-only scans, and
    // with id included both ip indexes answer a filtered page's ids without touching the table.
    sql: `
      UPDATE conversions SET extra = (COALESCE(extra, '{}')::jsonb || jsonb_build_object('i', ip))::text
        WHERE ip <> lower(ip) AND (extra IS NULL OR NOT (extra::jsonb ? 'd'));
      UPDATE conversions SET ip = lower(ip) WHERE ip <> lower(ip);
      DROP INDEX conversions_ip_text;
      CREATE INDEX conversions_ip_text ON conversions(project, ip) INCLUDE (id);
      DROP INDEX conversions_ip_key;
      CREATE INDEX conversions_ip_key ON conversions(project, ip_key) INCLUDE (id);
    `,
  },
  {
    version: 3,
    name: "prefix search on the ip_key index; text index only for rows without a key",
    // As in SQLite: one random-order ip index per inserted row instead of two.
    sql: `
      DROP INDEX conversions_ip_text;
      CREATE INDEX conversions_ip_unkeyed ON conversions(project, ip) INCLUDE (id) WHERE ip_key IS NULL;
    `,
  },
  {
    version: 4,
    name: "conversion ids counted per project",
    // As in SQLite: the public id is numbered per project, not the table's global sequence.
    sql: `
      ALTER TABLE projects ADD COLUMN conversions bigint NOT NULL DEFAULT 0;
      ALTER TABLE conversions ADD COLUMN seq bigint;
      UPDATE conversions c SET seq = r.n
        FROM (SELECT id, row_number() OVER (PARTITION BY project ORDER BY id) AS n FROM conversions) r
        WHERE r.id = c.id;
      UPDATE projects p SET conversions = (SELECT count(*) FROM conversions c WHERE c.project = p.seq);
    `,
  },
  {
    // the number of SQLite's; its 5 (open bulks) has no counterpart here
    version: 6,
    name: "ip_key index in blocks of row ids",
    // As in SQLite: random addresses put each new row's key on a random leaf of the index, and
    // the first change of a leaf after a checkpoint writes the whole page to the WAL. Keyed by the
    // row's block of ids first, new keys land among the newest block's leaves; a search seeks
    // once per block (docs/storage.md "The ip_key index in blocks of row ids").
    sql: `
      DROP INDEX conversions_ip_key;
      CREATE INDEX conversions_ip_key ON conversions(project, (id >> ${IP_KEY_BLOCK_BITS}), ip_key) INCLUDE (id);
    `,
  },
];
