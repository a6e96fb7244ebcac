/**
 * Where `convert` and `lookup` get their answers: the local engine (no server, no quota, nothing
 * stored) or a server's bulk API through the typed client (stored and counted there), in chunks
 * of at most 5000 with retries on 429 (Retry-After) and on failures to reach the server.
 */
import { bareIpObject, type IpObject } from "../../../lib/schemas/ip-object.js";
import { LIMITS } from "../../../lib/schemas/api.js";
import { createClient, isApiError } from "../../../lib/client/index.js";
import type { GeoEngine } from "../../geo/types.js";

export interface AddressSource {
  /** addresses per convert() call */
  batchSize: number;
  /** one Ip object per input, in order; invalid input comes back with only `ip` (the input) set */
  convert(inputs: string[]): Promise<IpObject[]>;
}

export function engineSource(engine: GeoEngine): AddressSource {
  return {
    batchSize: 1000,
    async convert(inputs) {
      const now = new Date();
      return inputs.map((input) => engine.convert(input, now).data);
    },
  };
}

export interface ServerSourceOptions {
  baseUrl: string;
  apiKey: string;
  /** a 429 whose Retry-After is further away than this fails instead of waiting (a monthly quota) */
  maxWaitMs?: number;
  /** attempts per chunk when the server cannot be reached or answers 5xx / 429 */
  attempts?: number;
  /** told before each wait, for the user */
  onWait?: (ms: number, why: string) => void;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function serverSource(options: ServerSourceOptions): AddressSource {
  const client = createClient({ baseUrl: options.baseUrl, apiKey: options.apiKey, timeoutMs: 120_000, now: options.now });
  const sleep = options.sleep ?? defaultSleep;
  const now = options.now ?? Date.now;
  const maxWaitMs = options.maxWaitMs ?? 120_000;
  const attempts = options.attempts ?? 6;
  return {
    batchSize: LIMITS.ipsPerRequest,
    async convert(inputs) {
      for (let attempt = 1; ; attempt++) {
        try {
          const answer = await client.bulkConvert(inputs);
          return answer.data.map((item) => item.conversion ?? bareIpObject(item.ip, null));
        } catch (error) {
          if (!isApiError(error) || attempt >= attempts) throw error;
          let waitMs: number;
          if (error.kind === "quota-exceeded" || error.kind === "rate-limited") {
            waitMs = Math.max(0, (error.retryAt ?? now() + 1000) - now());
            if (waitMs > maxWaitMs) {
              const until = error.retryAt ? `; retry after ${new Date(Math.round(error.retryAt / 1000) * 1000).toISOString().replace(".000Z", "Z")}` : "";
              throw new Error(`${error.message}${until}`);
            }
          } else if (error.kind === "unreachable" || error.kind === "server-error") {
            waitMs = Math.min(30_000, 500 * 2 ** (attempt - 1));
          } else {
            throw error;
          }
          options.onWait?.(waitMs, error.message);
          await sleep(waitMs);
        }
      }
    },
  };
}
