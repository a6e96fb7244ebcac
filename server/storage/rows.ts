/**
 * Row shapes shared by both dialects (same column names, times as integer milliseconds) and
 * their mapping to the interface types, so SQLite and PostgreSQL return identical objects.
 */
import type { Plan } from "../../lib/schemas/api.js";
import type { IpObject } from "../../lib/schemas/ip-object.js";
import { decodeRecord, ipObjectParts, recordJson, recordParts, statusFromCode, type RecordParts, type StoredColumns } from "./record-codec.js";
import type { ApiKey, KeyKind, Project, StoredConversion, Website } from "./types.js";

export interface ProjectRow {
  id: string;
  name: string;
  plan: string;
  created_at: number;
}

export interface KeyRow {
  id: string;
  project_id: string;
  name: string;
  kind: string;
  prefix: string;
  website_id: string | null;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

export interface WebsiteRow {
  id: string;
  project_id: string;
  origin: string;
  created_at: number;
}

export interface ConversionRow {
  id: number;
  /** the public id: numbered per project */
  seq: number;
  unique_id: string;
  status: number;
  ip: string | null;
  ip_key: Uint8Array | null;
  started_at: number;
  completed_ms: number | null;
  created_ms: number;
  location_json: string | null;
  network_json: string | null;
  tz_offset: number | null;
  time_shift: number;
  completion_us: number | null;
  extra: string | null;
}

/** The columns every conversion read selects (`c` conversions, `l` locations, `n` networks). */
export const CONVERSION_COLUMNS = `c.id, c.seq, c.unique_id, c.status, c.ip, c.ip_key, c.started_at, c.completed_ms,
  c.created_ms, l.json AS location_json, n.json AS network_json, c.tz_offset, c.time_shift,
  c.completion_us, c.extra`;

export const CONVERSION_JOINS = `LEFT JOIN locations l ON l.id = c.location LEFT JOIN networks n ON n.id = c.network`;

export const iso = (ms: number): string => new Date(ms).toISOString();
const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));

export function toProject(row: ProjectRow): Project {
  return { id: row.id, name: row.name, plan: row.plan as Plan, createdAt: iso(row.created_at) };
}

export function toKey(row: KeyRow): ApiKey {
  return {
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    kind: row.kind as KeyKind,
    prefix: row.prefix,
    websiteId: row.website_id,
    createdAt: iso(row.created_at),
    lastUsedAt: isoOrNull(row.last_used_at),
    revokedAt: isoOrNull(row.revoked_at),
  };
}

export function toWebsite(row: WebsiteRow): Website {
  return { id: row.id, projectId: row.project_id, origin: row.origin, createdAt: iso(row.created_at) };
}

/**
 * A conversion as read from storage. `data` is decoded when first read: a page answered as text
 * (conversionDataJson) never needs the object. A getter is not an own property, so `toJSON` gives
 * JSON.stringify the same keys as a plain StoredConversion.
 */
class StoredRecord implements StoredConversion {
  readonly id: number;
  readonly uniqueId: string;
  readonly status: StoredConversion["status"];
  readonly startedAt: string;
  readonly completedAt: string | null;
  readonly createdAt: string;
  readonly #columns: StoredColumns;
  readonly #startedAtMs: number;
  #data: IpObject | undefined;
  #parts: RecordParts | undefined;

  constructor(row: ConversionRow) {
    this.id = row.seq;
    this.uniqueId = row.unique_id;
    this.status = statusFromCode(row.status);
    this.startedAt = iso(row.started_at);
    this.completedAt = row.completed_ms === null ? null : iso(row.started_at + row.completed_ms);
    this.createdAt = iso(row.started_at + row.created_ms);
    this.#columns = {
      ip: row.ip,
      ipKey: row.ip_key,
      locationJson: row.location_json,
      networkJson: row.network_json,
      tzOffset: row.tz_offset,
      timeShift: row.time_shift,
      completionUs: row.completion_us,
      extra: row.extra,
    };
    this.#startedAtMs = row.started_at;
  }

  get data(): IpObject {
    return (this.#data ??= decodeRecord(this.#columns, this.#startedAtMs));
  }

  /** `JSON.stringify(this.data)`, written from the stored texts (recordJson) */
  dataJson(): string {
    return recordJson(this.#columns, this.#startedAtMs);
  }

  /** the ip and the parts, shared with other rows (recordParts); read once (a filter, then the CSV or the map) */
  parts(): RecordParts {
    return (this.#parts ??= recordParts(this.#columns, this.#startedAtMs));
  }

  toJSON(): StoredConversion {
    const { id, uniqueId, status, data, startedAt, completedAt, createdAt } = this;
    return { id, uniqueId, status, data, startedAt, completedAt, createdAt };
  }
}

export function toConversion(row: ConversionRow): StoredConversion {
  return new StoredRecord(row);
}

/** `JSON.stringify(conversion.data)`; from the stored texts for a conversion read from storage */
export function conversionDataJson(conversion: StoredConversion): string {
  return conversion instanceof StoredRecord ? conversion.dataJson() : JSON.stringify(conversion.data);
}

/**
 * A conversion's ip and location and network parts, to read a few fields of many conversions
 * (the dashboard's filters, map and CSV): for one read from storage without decoding its whole
 * Ip object. The parts may be shared and frozen: read them, never change them.
 */
export function conversionParts(conversion: StoredConversion): RecordParts {
  return conversion instanceof StoredRecord ? conversion.parts() : ipObjectParts(conversion.data);
}

/**
 * A conversion as the API shows it (docs/api.md "Conversion records"), as JSON text; `dataJson`
 * its data's text when cut to a `select`, else written from the stored texts (conversionDataJson).
 */
export function conversionJson(conversion: StoredConversion, dataJson = conversionDataJson(conversion)): string {
  const { id, uniqueId, status, startedAt, completedAt, createdAt } = conversion;
  return `{"id":${id},"uniqueId":${JSON.stringify(uniqueId)},"data":${dataJson},"status":${JSON.stringify(status)},"startedAt":${JSON.stringify(startedAt)},"completedAt":${JSON.stringify(completedAt)},"createdAt":${JSON.stringify(createdAt)}}`;
}

/** Keeps the first of each id, in the order asked. */
export function inRequestOrder(ids: string[], found: StoredConversion[]): StoredConversion[] {
  const byId = new Map(found.map((c) => [c.uniqueId, c]));
  const seen = new Set<string>();
  const out: StoredConversion[] = [];
  for (const id of ids) {
    const key = id.toLowerCase();
    const hit = byId.get(key);
    if (hit && !seen.has(key)) {
      seen.add(key);
      out.push(hit);
    }
  }
  return out;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string): boolean => UUID.test(value);
