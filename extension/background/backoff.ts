/**
 * No retry storms: after a failure the worker stays quiet instead of asking again on every hover.
 * A 429 waits until the reset time the server gave (Retry-After / X-RateLimit-Reset); other
 * failures wait a doubling pause. The blocking error is kept so callers can show it meanwhile.
 */
import { ApiError } from "../../lib/client/index.js";

export interface BackoffOptions {
  now?: () => number;
  /** pause after a 429 whose headers were unreadable; default 60 s */
  limitedPauseMs?: number;
  /** first pause after an unreachable server or 5xx, doubled each time; default 2 s */
  firstPauseMs?: number;
  /** longest doubling pause; default 5 min */
  maxPauseMs?: number;
}

export interface Backoff {
  /** the error to answer with while blocked, else null */
  blocking(): ApiError | null;
  failed(error: ApiError): void;
  succeeded(): void;
}

/** Failures that asking again soon will not fix, and that must not hammer the server. */
const WAITS_FOR_RESET = new Set(["rate-limited", "quota-exceeded"]);
const TRANSIENT = new Set(["unreachable", "server-error", "bad-response"]);

export function createBackoff(options: BackoffOptions = {}): Backoff {
  const now = options.now ?? Date.now;
  const limitedPause = options.limitedPauseMs ?? 60_000;
  const firstPause = options.firstPauseMs ?? 2_000;
  const maxPause = options.maxPauseMs ?? 5 * 60_000;
  let until = 0;
  let error: ApiError | null = null;
  let streak = 0;

  return {
    blocking() {
      return error && now() < until ? error : null;
    },
    failed(failure) {
      if (WAITS_FOR_RESET.has(failure.kind)) {
        until = Math.max(failure.retryAt ?? 0, now() + (failure.retryAt ? 0 : limitedPause));
      } else if (TRANSIENT.has(failure.kind)) {
        until = now() + Math.min(maxPause, firstPause * 2 ** streak);
        streak++;
      } else {
        // Key or origin problems: nothing changes until the user does; wait like a 429 would.
        until = now() + limitedPause;
      }
      error = new ApiError({
        kind: failure.kind,
        status: failure.status,
        message: failure.message,
        details: failure.details,
        retryAt: until,
        requestId: failure.requestId,
      });
    },
    succeeded() {
      until = 0;
      error = null;
      streak = 0;
    },
  };
}
