/**
 * Realistic conversions for the storage tests and bench/storage.ts: a few dozen distinct
 * locations and networks (as real traffic repeats them), random public addresses, time_now in
 * the location's offset.
 */
import { randomUUID } from "node:crypto";
import type { IpObject } from "../../lib/schemas/ip-object.js";
import type { NewConversion } from "../../server/storage/types.js";
import { newPartToken } from "../../server/geo/engine/part-tokens.js";

const CITIES = [
  { city: "London", code: "GB", country: "United Kingdom", tz: "Europe/London", offset: 0, lat: 51.5, eu: false },
  { city: "Paris", code: "FR", country: "France", tz: "Europe/Paris", offset: 60, lat: 48.85, eu: true },
  { city: "New York", code: "US", country: "United States", tz: "America/New_York", offset: -300, lat: 40.7, eu: false },
  { city: "Mumbai", code: "IN", country: "India", tz: "Asia/Kolkata", offset: 330, lat: 19.07, eu: false },
  { city: "Kathmandu", code: "NP", country: "Nepal", tz: "Asia/Kathmandu", offset: 345, lat: 27.7, eu: false },
  { city: "Sydney", code: "AU", country: "Australia", tz: "Australia/Sydney", offset: 660, lat: -33.86, eu: false },
];

function timeNow(startedAt: number, offsetMinutes: number): string {
  const local = new Date(Math.floor(startedAt / 1000) * 1000 + offsetMinutes * 60_000).toISOString().slice(0, 19);
  const abs = Math.abs(offsetMinutes);
  const hh = String(Math.floor(abs / 60)).padStart(2, "0");
  const mm = String(abs % 60).padStart(2, "0");
  return `${local}${offsetMinutes < 0 ? "-" : "+"}${hh}:${mm}`;
}

export function randomIpv4(): string {
  return [1 + Math.floor(Math.random() * 222), 0, 0, 0].map((first, i) => (i ? Math.floor(Math.random() * 256) : first)).join(".");
}

export function randomIpv6(): string {
  const groups = ["2001", "db8", ...Array.from({ length: 6 }, () => Math.floor(Math.random() * 0x10000).toString(16))];
  return groups.join(":");
}

export function sampleIpObject(ip: string, startedAt: number, variant = 0): IpObject {
  const place = CITIES[variant % CITIES.length]!;
  const asn = 13335 + (variant % 7);
  // lookups are timed to the microsecond, as the engine does
  const us = 40 + ((variant * 7919) % 300);
  return {
    ip,
    type: ip.includes(":") ? "ipv6" : "ipv4",
    is_eu: place.eu,
    continent: {
      name: "Europe",
      code: "EU",
      geoname_id: 6255148,
      country: {
        name: place.country,
        code: place.code,
        geoname_id: 2635167 + variant,
        phone_code: "+44",
        capital: "London",
        tld: `.${place.code.toLowerCase()}`,
        subdivision: { name: "England", code: "ENG" },
        city: {
          name: place.city,
          geoname_id: 2643743 + (variant % 40),
          latitude: place.lat + (variant % 40) / 100,
          longitude: -0.1257,
          accuracy_radius: 20,
          metro_code: null,
          postal_code: variant % 3 ? "EC1A" : null,
          timezone: { name: place.tz, time_now: timeNow(startedAt, place.offset) },
        },
        flag: {
          img: `http://127.0.0.1:8787/flags/${place.code.toLowerCase()}.svg`,
          emoji: "🇬🇧",
          emoji_unicode: "U+1F1EC U+1F1E7",
        },
        currency: { name: "British Pound", code: "GBP", symbol: "£" },
      },
    },
    registered_country: { name: place.country, code: place.code, geoname_id: 2635167 },
    asn: { number: asn, name: `Example Networks ${asn}` },
    completion_time: { miliseconds: us / 1000, seconds: us / 1_000_000 },
  };
}

/** how many sample variants there are; a variant fixes the location and the network part */
export const SAMPLE_VARIANTS = 240;

export function sampleConversion(ip = randomIpv4(), variant = Math.floor(Math.random() * SAMPLE_VARIANTS)): NewConversion {
  const startedAt = Date.now();
  return {
    uniqueId: randomUUID(),
    status: "success",
    data: sampleIpObject(ip, startedAt, variant),
    startedAt,
    completedAt: startedAt + 1,
  };
}

/**
 * The engine hands identity tokens for the repeating parts of a result (ConvertParts); so do the
 * storage benches, one pair per sample variant, so that a commit costs what it costs the server
 * rather than re-serialising every location.
 */
const variantParts = Array.from({ length: SAMPLE_VARIANTS }, () => ({ location: newPartToken(), network: newPartToken() }));

/** A sample conversion of a random address (IPv6 at `ipv6Share`) with its variant's parts. */
export function sampleConversionWithParts(ipv6Share: number): NewConversion {
  const variant = Math.floor(Math.random() * SAMPLE_VARIANTS);
  return { ...sampleConversion(Math.random() < ipv6Share ? randomIpv6() : randomIpv4(), variant), parts: variantParts[variant] };
}
