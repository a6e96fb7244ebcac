/**
 * Local time in an IANA zone as `2026-11-22T04:05:06+01:00`. Intl is slow per call, so each
 * zone's UTC offset is cached for the quarter hour it was computed in: offsets change only at
 * transitions, and those fall on quarter-hour boundaries in UTC.
 */
const QUARTER_HOUR_MS = 15 * 60 * 1000;

const formatters = new Map<string, Intl.DateTimeFormat | null>();
const offsets = new Map<string, { quarter: number; offsetMs: number }>();

function formatterFor(zone: string): Intl.DateTimeFormat | null {
  let formatter = formatters.get(zone);
  if (formatter === undefined) {
    try {
      formatter = new Intl.DateTimeFormat("en-US", {
        timeZone: zone,
        hourCycle: "h23",
        year: "numeric",
        month: "numeric",
        day: "numeric",
        hour: "numeric",
        minute: "numeric",
        second: "numeric",
      });
    } catch {
      formatter = null; // a zone this runtime does not know
    }
    formatters.set(zone, formatter);
  }
  return formatter;
}

/** Offset of `zone` from UTC at `ms`, in milliseconds; null for an unknown zone. */
export function zoneOffsetMs(zone: string, ms: number): number | null {
  const quarter = Math.floor(ms / QUARTER_HOUR_MS);
  const cached = offsets.get(zone);
  if (cached && cached.quarter === quarter) return cached.offsetMs;
  const formatter = formatterFor(zone);
  if (!formatter) return null;
  const wholeSecond = Math.floor(ms / 1000) * 1000;
  const parts: Record<string, number> = {};
  for (const part of formatter.formatToParts(wholeSecond)) {
    if (part.type !== "literal") parts[part.type] = Number(part.value);
  }
  const asUtc = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
  const offsetMs = asUtc - wholeSecond;
  offsets.set(zone, { quarter, offsetMs });
  return offsetMs;
}

/** The last text made per zone: a bulk request converts thousands of addresses at one `now`. */
const lastText = new Map<string, { second: number; text: string | null }>();

/** ISO 8601 local time with offset and whole seconds, or null for an unknown zone. */
export function localTimeIso(zone: string, now: Date): string | null {
  const ms = now.getTime();
  const second = Math.floor(ms / 1000);
  const last = lastText.get(zone);
  if (last && last.second === second) return last.text;
  const text = formatLocalTime(zone, ms);
  lastText.set(zone, { second, text });
  return text;
}

function formatLocalTime(zone: string, ms: number): string | null {
  const offsetMs = zoneOffsetMs(zone, ms);
  if (offsetMs === null) return null;
  const local = new Date(Math.floor(ms / 1000) * 1000 + offsetMs).toISOString().slice(0, 19);
  const offsetMinutes = Math.round(offsetMs / 60000);
  const sign = offsetMinutes < 0 ? "-" : "+";
  const abs = Math.abs(offsetMinutes);
  return `${local}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

function pad(value: number): string {
  return value < 10 ? `0${value}` : String(value);
}
