/**
 * Website origin patterns (docs/api.md#keys-and-origins), shared by the server (public-key
 * checks, `website add`) and the dashboard (form validation). Browser-safe: only the global URL,
 * no Node imports.
 *
 *   example.com                    https and http on default ports
 *   *.example.com                  any subdomain (one or more labels), not the apex
 *   localhost:5173                 that host and port, http or https (example.com:443 is also
 *                                  https://example.com, whose Origin omits the default port)
 *   https://app.example.com:8443   exactly this origin (also chrome-extension://ID, moz-extension://UUID)
 *
 * Case-insensitive; internationalised names are compared in punycode (URL does the conversion).
 * A pattern may end in one `/` (pasted URLs); a request's Origin must be exactly an origin.
 */

export type OriginPattern =
  | { kind: "exact"; origin: string }
  | { kind: "host"; host: string; port: string; wildcard: boolean };

export type ParseResult = { ok: true; pattern: OriginPattern; normalized: string } | { ok: false; error: string };

const EXTENSION = /^(chrome-extension|moz-extension|safari-web-extension):\/\/([a-z0-9-]+)\/?$/;
/** What each browser uses as an extension's host: Chrome 32 letters a–p, Firefox and Safari a UUID. */
const EXTENSION_IDS: Record<string, { id: RegExp; what: string }> = {
  "chrome-extension": { id: /^[a-p]{32}$/, what: "a Chrome extension id is 32 letters from a to p" },
  "moz-extension": { id: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, what: "a Firefox extension id is a UUID" },
  "safari-web-extension": { id: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, what: "a Safari extension id is a UUID" },
};

/** True for browser-extension patterns: they call the API from the extension, never embed the widget. */
export function isExtensionPattern(pattern: string): boolean {
  return EXTENSION.test(pattern.trim().toLowerCase());
}
const HOSTNAME = /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/;
const MAX_LENGTH = 253 + 40;

/** A host name of non-empty labels, a dotted quad or a bracketed IPv6 address (as URL gives them back). */
function validHost(host: string): boolean {
  return host.startsWith("[") || /^\d+(\.\d+){3}$/.test(host) || HOSTNAME.test(host);
}

/**
 * host[:port] through URL, so IDNs become punycode and ports are checked; null when it is not just
 * a host. No userinfo, percent-encoding, empty port (`example.com:`) or port with a leading zero.
 */
function parseHostPort(text: string, scheme: "http" | "https"): { host: string; port: string } | null {
  if (!/^[^/?#@%\s\\]+$/.test(text)) return null;
  const portText = /^(?:\[[^\]]*\]|[^:]*)(?::(.*))?$/.exec(text)?.[1];
  if (portText !== undefined && !/^[1-9]\d{0,4}$/.test(portText)) return null;
  let url: URL;
  try {
    url = new URL(`${scheme}://${text}`);
  } catch {
    return null;
  }
  if (!validHost(url.hostname)) return null;
  return { host: url.hostname, port: url.port };
}

function describe(pattern: OriginPattern): string {
  if (pattern.kind === "exact") return pattern.origin;
  return `${pattern.wildcard ? "*." : ""}${pattern.host}${pattern.port ? `:${pattern.port}` : ""}`;
}

export function parseOriginPattern(input: string): ParseResult {
  const text = input.trim().toLowerCase();
  const fail = (error: string): ParseResult => ({ ok: false, error });
  if (text === "") return fail("Origin pattern is empty");
  if (text.length > MAX_LENGTH) return fail("Origin pattern is too long");

  const extension = EXTENSION.exec(text);
  if (extension) {
    const rule = EXTENSION_IDS[extension[1]!]!;
    if (!rule.id.test(extension[2]!)) return fail(`Not an extension origin: ${input.trim()} (${rule.what})`);
    const pattern: OriginPattern = { kind: "exact", origin: `${extension[1]}://${extension[2]}` };
    return { ok: true, pattern, normalized: describe(pattern) };
  }

  const scheme = /^([a-z][a-z0-9+.-]*):\/\/(.*)$/.exec(text);
  if (scheme) {
    if (scheme[1] !== "http" && scheme[1] !== "https") return fail(`Unsupported scheme in origin pattern: ${scheme[1]}`);
    const rest = scheme[2]!.replace(/\/$/, "");
    if (rest.includes("*")) return fail("A full origin cannot contain a wildcard");
    const hostPort = parseHostPort(rest, scheme[1]);
    if (!hostPort) return fail(`Not an origin: ${input.trim()}`);
    const origin = new URL(`${scheme[1]}://${rest}`).origin;
    const pattern: OriginPattern = { kind: "exact", origin };
    return { ok: true, pattern, normalized: describe(pattern) };
  }

  const wildcard = text.startsWith("*.");
  const rest = wildcard ? text.slice(2) : text;
  if (rest.includes("*")) return fail("A wildcard is allowed only as the first label: *.example.com");
  // `*.com` would hand one key to every site under a top-level domain
  if (wildcard && !rest.replace(/:\d+$/, "").includes(".")) return fail("A wildcard needs a domain under it: *.example.com");
  // what sandboxed frames and file: pages send as their Origin; never a website
  if (rest === "null") return fail("null is not a website origin");
  const hostPort = parseHostPort(rest, "https");
  if (!hostPort) return fail(`Not a host name: ${input.trim()}`);
  // parsed as https, so an explicit :443 became "" — keep the port the user wrote
  const port = /:(\d+)$/.exec(rest)?.[1] ?? "";
  if (port && (Number(port) < 1 || Number(port) > 65535)) return fail(`Invalid port: ${port}`);
  const pattern: OriginPattern = { kind: "host", host: hostPort.host, port: port ? String(Number(port)) : "", wildcard };
  return { ok: true, pattern, normalized: describe(pattern) };
}

interface ParsedOrigin {
  scheme: string;
  host: string;
  /** "" for the scheme's default port */
  port: string;
  origin: string;
}

/**
 * A request's Origin header: exactly a serialized origin (RFC 6454), as browsers send it. No path
 * or trailing slash, userinfo, percent-encoding, empty or explicit default port, leading zeros,
 * empty labels: anything URL would have to rewrite is refused, not normalised. Case is ignored.
 */
function parseOrigin(origin: string): ParsedOrigin | null {
  const text = origin.toLowerCase();
  const extension = EXTENSION.exec(text);
  if (extension) return { scheme: extension[1]!, host: extension[2]!, port: "", origin: `${extension[1]}://${extension[2]}` };
  if (!/^https?:\/\/[^/?#@%\s\\]+$/.test(text)) return null;
  try {
    const url = new URL(text);
    if (url.origin !== text || !validHost(url.hostname)) return null;
    return { scheme: url.protocol.slice(0, -1), host: url.hostname, port: url.port, origin: url.origin };
  } catch {
    return null;
  }
}

/** True when `origin` is exactly a serialized origin, as a browser sends in its Origin header. */
export function isSerializedOrigin(origin: string | null | undefined): boolean {
  return typeof origin === "string" && origin !== "null" && parseOrigin(origin) !== null;
}

/** True when a request's Origin header is allowed by the pattern. A missing or `null` Origin never is. */
export function originMatches(pattern: OriginPattern, origin: string | null | undefined): boolean {
  if (!origin) return false;
  const parsed = parseOrigin(origin);
  if (!parsed) return false;
  if (pattern.kind === "exact") return parsed.origin === pattern.origin;
  if (parsed.scheme !== "http" && parsed.scheme !== "https") return false;
  // `example.com:443` names https://example.com too, whose Origin leaves the default port out
  const defaultPort = parsed.scheme === "https" ? "443" : "80";
  if ((parsed.port || defaultPort) !== (pattern.port || defaultPort)) return false;
  if (pattern.wildcard) return parsed.host.endsWith(`.${pattern.host}`);
  return parsed.host === pattern.host;
}

/** Convenience for stored (already normalised) patterns. */
export function originAllowed(patternText: string, origin: string | null | undefined): boolean {
  const parsed = parseOriginPattern(patternText);
  return parsed.ok && originMatches(parsed.pattern, origin);
}
