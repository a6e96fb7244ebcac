/**
 * The one storage interface. SQLite (default, embedded) and PostgreSQL implement it; routes,
 * middlewares and the CLI see only this, so no SQL dialect leaks out of server/storage/.
 */
import type { IpObject } from "../../lib/schemas/ip-object.js";
import type { ConversionStatus, Plan } from "../../lib/schemas/api.js";
import type { AddressFields, ConvertParts } from "../geo/types.js";

export interface Project {
  id: string;
  name: string;
  plan: Plan;
  createdAt: string;
}

export type KeyKind = "secret" | "public";

export interface ApiKey {
  id: string;
  projectId: string;
  name: string;
  kind: KeyKind;
  /** first characters of the value, safe to show: `ipa_sk_AbCd` */
  prefix: string;
  /** for public keys: the website it belongs to */
  websiteId: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface Website {
  id: string;
  projectId: string;
  /** the origin pattern as registered (docs/api.md#keys-and-origins), normalised */
  origin: string;
  createdAt: string;
}

/** A key found by the hash of its value, with what authentication needs in one read. */
export interface KeyAuth {
  key: ApiKey;
  project: Project;
  website: Website | null;
}

/** One conversion to store, already complete. */
export interface NewConversion {
  uniqueId: string;
  status: ConversionStatus;
  data: IpObject;
  /** ms since epoch; also the instant the Ip object's time_now was computed from */
  startedAt: number;
  completedAt: number;
  /** the engine's identity tokens for the repeating parts of `data`, when it gave them */
  parts?: ConvertParts;
  /** with `parts`: the per-address values of `data`, so that `data` is read only for a new part */
  address?: AddressFields;
}

export interface StoredConversion {
  id: number;
  uniqueId: string;
  status: ConversionStatus;
  data: IpObject;
  startedAt: string;
  completedAt: string | null;
  createdAt: string;
}

/** One convert request's writes: its quota reservation and its records, committed together or not at all. */
export interface ConversionBatch {
  projectId: string;
  /** calendar month in UTC, "2026-11" */
  period: string;
  /** null for unlimited plans (nothing is refused, usage is still counted) */
  limit: number | null;
  conversions: NewConversion[];
  /**
   * Called when the batch's rows go to the database (SQLite's writer thread, PostgreSQL's socket):
   * this process has built them, and its event loop is free until the write returns. Work on the
   * same conversions that need not wait for the commit (a bulk's answer) starts here rather than
   * after it. May be called more than once (a bulk in pieces).
   */
  onWriting?: () => void;
}

export type CommitResult =
  | { accepted: true; used: number }
  | { accepted: false; used: number };

/** ipSearch (docs/api.md#endpoints): a CIDR range or a case-insensitive prefix of the canonical ip text. */
export type IpFilter =
  | { kind: "prefix"; prefix: string }
  | { kind: "range"; version: 4 | 6; first: Uint8Array; last: Uint8Array };

export interface ListQuery {
  projectId: string;
  offset: number;
  limit: number;
  ip?: IpFilter;
}

export interface ListResult {
  conversions: StoredConversion[];
  totalCount: number;
}

export interface StorageWaiting {
  /** conversion rows submitted and not yet taken into a group commit */
  writeRows: number;
  /** lists waiting for their turn to be read (docs/storage.md "Lists off the event loop, taking turns") */
  lists: number;
}

export interface Storage {
  readonly kind: "sqlite" | "postgres";
  /** runs the versioned migrations that are not applied yet */
  migrate(): Promise<void>;
  /** flushes pending group commits, then closes */
  close(): Promise<void>;

  createProject(input: { name: string; plan: Plan }): Promise<Project>;
  getProject(id: string): Promise<Project | null>;
  listProjects(): Promise<Project[]>;
  setPlan(projectId: string, plan: Plan): Promise<Project | null>;

  createKey(input: { projectId: string; name: string; kind: KeyKind; hash: string; prefix: string; websiteId?: string | null }): Promise<ApiKey>;
  listKeys(projectId: string): Promise<ApiKey[]>;
  getKey(keyId: string): Promise<ApiKey | null>;
  findKeyByHash(hash: string): Promise<KeyAuth | null>;
  /** replaces the hash (old value dead at once) */
  rollKey(keyId: string, hash: string, prefix: string): Promise<ApiKey | null>;
  revokeKey(keyId: string): Promise<ApiKey | null>;
  /** lazy lastUsedAt: the server batches these */
  touchKeys(uses: Array<{ keyId: string; at: number }>): Promise<void>;

  createWebsite(input: { projectId: string; origin: string }): Promise<Website>;
  listWebsites(projectId: string): Promise<Website[]>;
  getWebsite(websiteId: string): Promise<Website | null>;
  removeWebsite(websiteId: string): Promise<Website | null>;

  /**
   * A number that grows with every change to projects, keys or websites, made by any process.
   * Servers poll it to drop their key cache (CLI changes reach them within a second).
   */
  changeVersion(): Promise<number>;

  /**
   * Settings of the database server under which the store slows down as it grows, each a sentence
   * for the operator (PostgreSQL with autovacuum off, docs/storage.md); `ipatlas serve` logs them.
   */
  upkeepWarnings(): Promise<string[]>;

  /** what waits in this process's queues now, for the metrics (server/metrics) */
  waiting(): StorageWaiting;

  /**
   * Group commit: batches that arrive together share one transaction. Each batch reserves its
   * quota with one atomic statement (used + n <= limit) and inserts its records in the same
   * transaction; a refused batch stores and counts nothing. Resolves only once committed. (A
   * SQLite bulk may take several transactions, yet is seen and counted only whole:
   * docs/storage.md "Bulks in pieces".)
   */
  commitConversions(batch: ConversionBatch): Promise<CommitResult>;
  usage(projectId: string, period: string): Promise<number>;

  getConversion(projectId: string, uniqueId: string): Promise<StoredConversion | null>;
  /** in the order asked, each once, unknown ones left out */
  getConversions(projectId: string, uniqueIds: string[]): Promise<StoredConversion[]>;
  /** newest first */
  listConversions(query: ListQuery): Promise<ListResult>;
  /** every row (of the ipSearch, when given), newest first, in pages of `pageRows`: each page read on from where the last one ended */
  walkConversions(projectId: string, ip: IpFilter | undefined, pageRows: number): AsyncGenerator<StoredConversion[]>;
}
