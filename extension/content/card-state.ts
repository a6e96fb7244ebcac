/** What the hover card is showing right now; signals so the view re-renders by itself. */
import { signal } from "@preact/signals";
import type { QuotaInfo } from "../../lib/client/index.js";
import type { IpObject } from "../../lib/schemas/ip-object.js";
import type { LookupService } from "../shared/services.js";
import type { WireError } from "../shared/wire-error.js";

export type CardState = (
  | { status: "private" }
  | { status: "loading" }
  | { status: "ready"; data: IpObject | null }
  | { status: "error"; error: WireError }
) & {
  ip: string;
  /** a CIDR block's prefix length; `ip` is its network address */
  prefix?: number;
};

export const cardState = signal<CardState | null>(null);
/** the quota as the worker last reported it */
export const cardQuota = signal<QuotaInfo | null>(null);
/** the user's lookup services, linked from the card */
export const cardServices = signal<LookupService[]>([]);
