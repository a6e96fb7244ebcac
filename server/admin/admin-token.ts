/**
 * The admin token that signs in to the dashboard: IPATLAS_ADMIN_TOKEN when set, otherwise one
 * generated on first start into the data dir (mode 0600) and printed once, at generation.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const ADMIN_TOKEN_FILE = "admin-token";

export interface AdminTokenOptions {
  /** IPATLAS_ADMIN_TOKEN; wins over the file */
  envToken?: string | undefined;
  dataDir: string;
  /** where the one-time notice goes */
  print?: (line: string) => void;
}

export interface AdminToken {
  value: string;
  source: "env" | "file" | "generated";
}

export function resolveAdminToken({ envToken, dataDir, print = console.log }: AdminTokenOptions): AdminToken {
  const fromEnv = envToken?.trim();
  if (fromEnv) return { value: fromEnv, source: "env" };

  const path = join(dataDir, ADMIN_TOKEN_FILE);
  const existing = readToken(path);
  if (existing) return { value: existing, source: "file" };

  mkdirSync(dataDir, { recursive: true });
  const value = `ipa_admin_${randomBytes(24).toString("base64url")}`;
  try {
    // "wx": two servers starting on one data dir must not overwrite each other's token.
    writeFileSync(path, `${value}\n`, { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const winner = readToken(path);
    if (winner) return { value: winner, source: "file" };
    throw error;
  }
  print(`Dashboard admin token (saved to ${path}, shown only this once): ${value}`);
  return { value, source: "generated" };
}

function readToken(path: string): string | null {
  try {
    return readFileSync(path, "utf8").trim() || null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}
