/**
 * The 27 member states of the European Union as of today (the United Kingdom left in 2020).
 * Kept as our own list rather than a database flag, so `is_eu` is the same whatever the source.
 */
export const EU_MEMBERS: ReadonlySet<string> = new Set([
  "AT", "BE", "BG", "HR", "CY", "CZ", "DK", "EE", "FI", "FR", "DE", "GR", "HU", "IE",
  "IT", "LV", "LT", "LU", "MT", "NL", "PL", "PT", "RO", "SK", "SI", "ES", "SE",
]);
