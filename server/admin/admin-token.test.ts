import { describe, expect, it } from "vitest";
import { mkdtempSync, statSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ADMIN_TOKEN_FILE, resolveAdminToken } from "./admin-token.js";

const tempDir = () => mkdtempSync(join(tmpdir(), "ipatlas-admin-token-"));

describe("resolveAdminToken", () => {
  it("uses IPATLAS_ADMIN_TOKEN and writes nothing", () => {
    const dataDir = tempDir();
    const printed: string[] = [];
    const token = resolveAdminToken({ envToken: " from-env ", dataDir, print: (l) => printed.push(l) });
    expect(token).toEqual({ value: "from-env", source: "env" });
    expect(() => statSync(join(dataDir, ADMIN_TOKEN_FILE))).toThrow();
    expect(printed).toEqual([]);
  });

  it("generates a token once, mode 0600, printed only at generation", () => {
    const dataDir = join(tempDir(), "nested");
    const printed: string[] = [];
    const first = resolveAdminToken({ dataDir, print: (l) => printed.push(l) });
    expect(first.source).toBe("generated");
    expect(first.value).toMatch(/^ipa_admin_[A-Za-z0-9_-]{32}$/);
    const file = join(dataDir, ADMIN_TOKEN_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8").trim()).toBe(first.value);
    expect(printed).toHaveLength(1);
    expect(printed[0]).toContain(first.value);

    const second = resolveAdminToken({ dataDir, print: (l) => printed.push(l) });
    expect(second).toEqual({ value: first.value, source: "file" });
    expect(printed).toHaveLength(1);
  });
});
