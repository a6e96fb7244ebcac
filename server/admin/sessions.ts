/**
 * Dashboard sessions as signed cookies: `<expiry>.<nonce>.<HMAC>`, keyed by a secret derived
 * from the admin token. Nothing is held per session, so every worker of `serve --workers N`
 * accepts a session any of them issued, and changing the admin token ends every session.
 * The CSRF token is a second HMAC of the same nonce, which only the page can read.
 * Sign-out clears the cookie and deny-lists it in this process until it expires.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export interface AdminSession {
  csrfToken: string;
  expiresAt: number;
}

export interface SessionStoreOptions {
  /** the admin token, from which the signing key is derived */
  secret: string;
  lifetimeMs?: number;
  now?: () => number;
}

export class SessionStore {
  private readonly key: Buffer;
  private readonly lifetimeMs: number;
  private readonly now: () => number;
  /** signed-out cookies (by their signature) until they would have expired */
  private readonly signedOut = new Map<string, number>();

  constructor(options: SessionStoreOptions) {
    this.key = createHash("sha256").update(`ipatlas-admin-session\0${options.secret}`).digest();
    this.lifetimeMs = options.lifetimeMs ?? 12 * 60 * 60_000;
    this.now = options.now ?? Date.now;
  }

  create(): { id: string; session: AdminSession } {
    const expiresAt = this.now() + this.lifetimeMs;
    const nonce = randomBytes(18).toString("base64url");
    const body = `${expiresAt}.${nonce}`;
    return { id: `${body}.${this.sign(`session.${body}`)}`, session: { csrfToken: this.sign(`csrf.${nonce}`), expiresAt } };
  }

  /** the session a cookie value stands for; null when forged, expired or signed out */
  read(id: string | undefined): AdminSession | null {
    const match = /^(\d{13,})\.([A-Za-z0-9_-]{24})\.([A-Za-z0-9_-]{43})$/.exec(id ?? "");
    if (!match) return null;
    const [, expiry, nonce, signature] = match as unknown as [string, string, string, string];
    if (!secretsEqual(signature, this.sign(`session.${expiry}.${nonce}`))) return null;
    const expiresAt = Number(expiry);
    if (expiresAt <= this.now() || this.signedOut.has(signature)) return null;
    return { csrfToken: this.sign(`csrf.${nonce}`), expiresAt };
  }

  destroy(id: string | undefined): void {
    const session = this.read(id);
    if (!session || !id) return;
    const now = this.now();
    for (const [signature, expiresAt] of this.signedOut) if (expiresAt <= now) this.signedOut.delete(signature);
    this.signedOut.set(id.slice(id.lastIndexOf(".") + 1), session.expiresAt);
  }

  private sign(text: string): string {
    return createHmac("sha256", this.key).update(text).digest("base64url");
  }
}

/** constant-time comparison of two secrets of any length */
export function secretsEqual(given: string, expected: string): boolean {
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}
