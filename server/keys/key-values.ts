/**
 * API key values (docs/api.md#keys-and-origins): a kind prefix and 32 random base62 characters
 * (~190 bits). Only the SHA-256 hash is stored; the shown `prefix` is the first four random
 * characters.
 */
import { hash, randomBytes } from "node:crypto";
import { KEY_PREFIX } from "../../lib/schemas/api.js";
import type { KeyKind } from "../storage/types.js";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const RANDOM_LENGTH = 32;
const SHOWN_RANDOM_CHARS = 4;

export interface GeneratedKey {
  value: string;
  hash: string;
  prefix: string;
}

function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    // rejection sampling keeps every character uniformly likely (248 = 4 * 62)
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

export function hashKey(value: string): string {
  return hash("sha256", value, "hex");
}

export function generateKey(kind: KeyKind): GeneratedKey {
  const value = KEY_PREFIX[kind] + randomBase62(RANDOM_LENGTH);
  return { value, hash: hashKey(value), prefix: value.slice(0, KEY_PREFIX[kind].length + SHOWN_RANDOM_CHARS) };
}

/** The kind a value claims by its prefix, or null when it cannot be one of our keys at all. */
export function keyKindOf(value: string): KeyKind | null {
  const random = /^[0-9A-Za-z]+$/;
  for (const kind of ["secret", "public"] as const) {
    const rest = value.startsWith(KEY_PREFIX[kind]) ? value.slice(KEY_PREFIX[kind].length) : null;
    if (rest !== null && rest.length === RANDOM_LENGTH && random.test(rest)) return kind;
  }
  return null;
}
