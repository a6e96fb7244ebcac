import { describe, expect, it } from "vitest";
import { generateKey, hashKey, keyKindOf } from "./key-values.js";

describe("key values", () => {
  it("carry the contract prefixes, a shown prefix and a SHA-256 hash", () => {
    const secret = generateKey("secret");
    expect(secret.value).toMatch(/^ipa_sk_[0-9A-Za-z]{32}$/);
    expect(secret.prefix).toBe(secret.value.slice(0, 11));
    expect(secret.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(secret.hash).toBe(hashKey(secret.value));
    expect(generateKey("public").value).toMatch(/^ipa_pk_[0-9A-Za-z]{32}$/);
  });

  it("are never the same twice", () => {
    const values = new Set(Array.from({ length: 1000 }, () => generateKey("secret").value));
    expect(values.size).toBe(1000);
  });

  it("tell their kind by prefix and shape", () => {
    expect(keyKindOf(generateKey("secret").value)).toBe("secret");
    expect(keyKindOf(generateKey("public").value)).toBe("public");
    expect(keyKindOf("ipa_sk_short")).toBeNull();
    expect(keyKindOf("sk_live_" + "a".repeat(32))).toBeNull();
  });
});
