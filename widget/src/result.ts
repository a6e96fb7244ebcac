/**
 * The outcome of one lookup, in the wire types of lib/schemas. Answers are checked with small
 * type guards instead of the zod schemas: zod would not fit the widget's 12 KB budget.
 */
import type { Envelope, ErrorEnvelope } from "../../lib/schemas/envelope.js";
import type { IpObject } from "../../lib/schemas/ip-object.js";
import type { DataSource } from "../../lib/schemas/data-sources.js";

/** `sources`: the data to credit, as the server named it (absent in answers cached by older widgets) */
export type LookupResult = { ok: true; data: IpObject; sources?: DataSource[] } | { ok: false; error: ErrorEnvelope };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const isObjectOrNull = (value: unknown) => value === null || isObject(value);

/** The envelope of docs/api.md#conventions: what every API answer is. */
export function isEnvelope(value: unknown): value is Envelope<unknown> {
  return (
    isObject(value) &&
    typeof value.success === "boolean" &&
    typeof value.message === "string" &&
    typeof value.code === "number" &&
    isObject(value._req)
  );
}

/** The parts of the Ip object (docs/api.md#the-ip-object) the widget reads; every key is present, objects may be null. */
export function isIpObject(value: unknown): value is IpObject {
  return (
    isObject(value) &&
    (value.ip === null || typeof value.ip === "string") &&
    isObjectOrNull(value.continent) &&
    isObjectOrNull(value.registered_country) &&
    isObjectOrNull(value.asn)
  );
}

/** An error envelope for failures that never reached the API (network down, not JSON, blocked by CSP). */
export function clientError(message: string): ErrorEnvelope {
  return { success: false, message, code: 0, data: null, _req: { reqId: "", resTime: 0 } };
}

/** Turns an HTTP answer into a result: success with an Ip object, or the error envelope. */
export function toResult(status: number, body: unknown, sources?: DataSource[]): LookupResult {
  if (!isEnvelope(body)) return { ok: false, error: clientError(`Unexpected answer (HTTP ${status})`) };
  if (body.success && isIpObject(body.data)) return { ok: true, data: body.data, sources };
  if (body.success) return { ok: false, error: { ...body, success: false, data: null } };
  const data = isObject(body.data) ? body.data : null;
  return { ok: false, error: { ...body, data } };
}
