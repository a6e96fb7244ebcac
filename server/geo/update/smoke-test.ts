/**
 * A lookup test on a new file before it may serve: well-known addresses must come out as they
 * have for years (the regional registries' own addresses, Google's and Cloudflare's resolvers). A
 * file that passes the structural checks but answers wrong fails here. A majority must match,
 * so one address that really moved does not block every update.
 */
import type { Reader, Response } from "maxmind";
import type { MmdbRole } from "../sources/mmdb-check.js";

export interface Probe {
  ip: string;
  /** city role: the country code expected */
  country?: string;
  /** asn role: the AS number expected */
  asn?: number;
}

export type Probes = Record<MmdbRole, Probe[]>;

export const DEFAULT_PROBES: Probes = {
  city: [
    { ip: "8.8.8.8", country: "US" },
    { ip: "193.0.6.139", country: "NL" }, // RIPE NCC
    { ip: "202.12.29.205", country: "AU" }, // APNIC
    { ip: "200.3.14.10", country: "UY" }, // LACNIC
    { ip: "2001:67c:2e8:22::c100:68b", country: "NL" }, // RIPE NCC, IPv6
  ],
  asn: [
    { ip: "8.8.8.8", asn: 15169 },
    { ip: "1.1.1.1", asn: 13335 },
    { ip: "193.0.6.139", asn: 3333 },
    { ip: "2001:4860:4860::8888", asn: 15169 },
  ],
};

/** Throws with the answers that were wrong when fewer than half of the probes (rounded up) match. */
export function smokeTest(reader: Reader<Response>, role: MmdbRole, probes: Probe[]): void {
  const wrong: string[] = [];
  for (const probe of probes) {
    const record = reader.get(probe.ip) as { country?: { iso_code?: string }; autonomous_system_number?: number } | null;
    const got = role === "city" ? (record?.country?.iso_code ?? null) : (record?.autonomous_system_number ?? null);
    const expected = role === "city" ? probe.country : probe.asn;
    if (got !== expected) wrong.push(`${probe.ip} gave ${got ?? "nothing"}, expected ${expected}`);
  }
  const needed = Math.ceil(probes.length / 2);
  if (probes.length - wrong.length < needed) {
    throw new Error(`lookup test failed (${probes.length - wrong.length} of ${probes.length} right): ${wrong.join("; ")}`);
  }
}
