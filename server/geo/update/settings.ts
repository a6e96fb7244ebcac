/**
 * The updater's settings from the environment (docs/data.md "Updates"). Kept beside the updater so
 * server/config.ts only hooks them in.
 */
import { DEFAULT_PROBES, type Probes } from "./smoke-test.js";

export type UpdateSource = "dbip" | "maxmind";

export interface UpdateSettings {
  /** how often `serve` checks for new data; null = never */
  everyMs: number | null;
  source: UpdateSource;
  /** base URL of a mirror holding the same file names as the origin (air-gapped sites) */
  mirrorUrl: string | null;
  maxmindAccountId: string | null;
  maxmindLicenseKey: string | null;
  maxmindEditions: { city: string; asn: string };
  /** a database older than this many days is reported `stale` */
  maxAgeDays: number;
  /** the addresses the lookup test checks a new file with (smoke-test.ts) */
  probes: Probes;
}

export class UpdateSettingsError extends Error {}

/** off: the bundled data needs nothing from the network; an operator asks for newer data (docs/data.md "Updates") */
export const DEFAULT_UPDATE_EVERY = "off";
export const DEFAULT_MAX_AGE_DAYS = 45;

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "24h", "30m", "7d", "90s"; "off" or "0" = null. At least a minute, so a typo cannot hammer the source. */
export function parseInterval(name: string, raw: string): number | null {
  const text = raw.trim().toLowerCase();
  if (text === "off" || text === "0" || text === "never") return null;
  const match = /^(\d+(?:\.\d+)?)\s*([smhd])$/.exec(text);
  if (!match) throw new UpdateSettingsError(`${name} must be a duration like 24h, 30m or 7d, or "off"; got "${raw}"`);
  const ms = Number(match[1]) * UNIT_MS[match[2]!]!;
  if (ms < 1000) throw new UpdateSettingsError(`${name} must be at least 1s, got "${raw}"`);
  return ms;
}

function text(raw: string | undefined): string | null {
  return raw === undefined || raw.trim() === "" ? null : raw.trim();
}

export function loadUpdateSettings(env: NodeJS.ProcessEnv, flags: { updateEvery?: string } = {}): UpdateSettings {
  const everyName = flags.updateEvery !== undefined ? "--update-every" : "IPATLAS_UPDATE_EVERY";
  const everyMs = parseInterval(everyName, flags.updateEvery ?? text(env.IPATLAS_UPDATE_EVERY) ?? DEFAULT_UPDATE_EVERY);
  const maxmindAccountId = text(env.IPATLAS_MAXMIND_ACCOUNT_ID);
  const maxmindLicenseKey = text(env.IPATLAS_MAXMIND_LICENSE_KEY);
  if ((maxmindAccountId === null) !== (maxmindLicenseKey === null)) {
    throw new UpdateSettingsError("IPATLAS_MAXMIND_ACCOUNT_ID and IPATLAS_MAXMIND_LICENSE_KEY go together: set both or neither");
  }
  const rawSource = text(env.IPATLAS_UPDATE_SOURCE)?.toLowerCase() ?? (maxmindAccountId ? "maxmind" : "dbip");
  if (rawSource !== "dbip" && rawSource !== "maxmind") throw new UpdateSettingsError(`IPATLAS_UPDATE_SOURCE must be dbip or maxmind, got "${rawSource}"`);
  const mirrorUrl = text(env.IPATLAS_UPDATE_MIRROR);
  if (mirrorUrl !== null && !/^https?:\/\/[^/]+/.test(mirrorUrl)) throw new UpdateSettingsError(`IPATLAS_UPDATE_MIRROR must be an http(s) URL, got "${mirrorUrl}"`);
  if (rawSource === "maxmind" && !maxmindAccountId && !mirrorUrl) {
    throw new UpdateSettingsError("IPATLAS_UPDATE_SOURCE=maxmind needs IPATLAS_MAXMIND_ACCOUNT_ID and IPATLAS_MAXMIND_LICENSE_KEY (or IPATLAS_UPDATE_MIRROR)");
  }
  const rawMaxAge = text(env.IPATLAS_DATA_MAX_AGE_DAYS);
  const maxAgeDays = rawMaxAge === null ? DEFAULT_MAX_AGE_DAYS : Number(rawMaxAge);
  if (!Number.isInteger(maxAgeDays) || maxAgeDays < 1 || maxAgeDays > 3650) {
    throw new UpdateSettingsError(`IPATLAS_DATA_MAX_AGE_DAYS must be an integer between 1 and 3650, got "${rawMaxAge}"`);
  }
  return {
    everyMs,
    source: rawSource,
    mirrorUrl: mirrorUrl?.replace(/\/+$/, "") ?? null,
    maxmindAccountId,
    maxmindLicenseKey,
    maxmindEditions: {
      city: text(env.IPATLAS_MAXMIND_CITY_EDITION) ?? "GeoLite2-City",
      asn: text(env.IPATLAS_MAXMIND_ASN_EDITION) ?? "GeoLite2-ASN",
    },
    maxAgeDays,
    probes: parseProbes(text(env.IPATLAS_UPDATE_PROBES)),
  };
}

/**
 * IPATLAS_UPDATE_PROBES: `8.8.8.8=US,193.0.6.139=NL,1.1.1.1=AS13335`: an address and the country
 * code (city data) or AS number (ASN data) it must have, for data whose coverage differs from the
 * public sources'. A role without probes keeps the default ones.
 */
export function parseProbes(raw: string | null): Probes {
  if (raw === null) return DEFAULT_PROBES;
  const probes: Probes = { city: [], asn: [] };
  for (const item of raw.split(",").map((part) => part.trim()).filter(Boolean)) {
    const match = /^([0-9a-fA-F:.]+)=(?:([A-Za-z]{2})|AS(\d+))$/.exec(item);
    if (!match) throw new UpdateSettingsError(`IPATLAS_UPDATE_PROBES items look like 8.8.8.8=US or 8.8.8.8=AS15169, got "${item}"`);
    if (match[2]) probes.city.push({ ip: match[1]!, country: match[2].toUpperCase() });
    else probes.asn.push({ ip: match[1]!, asn: Number(match[3]) });
  }
  return { city: probes.city.length ? probes.city : DEFAULT_PROBES.city, asn: probes.asn.length ? probes.asn : DEFAULT_PROBES.asn };
}
