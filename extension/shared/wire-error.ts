/**
 * An ApiError as it crosses `runtime.sendMessage` (structured clone drops the class), and the
 * plain words each kind of failure gets in the options page, popup and hover card.
 */
import type { ApiError, ApiErrorKind } from "../../lib/client/index.js";
import { t } from "./i18n.js";

export interface WireError {
  kind: ApiErrorKind | "not-configured";
  message: string;
  status: number;
  /** epoch ms when asking again makes sense, else null */
  retryAt: number | null;
}

export function toWireError(error: ApiError): WireError {
  return { kind: error.kind, message: error.message, status: error.status, retryAt: error.retryAt };
}

export const NOT_CONFIGURED: WireError = {
  kind: "not-configured",
  message: "Set the Server URL and API key in the extension's options",
  status: 0,
  retryAt: null,
};

function until(retryAt: number | null, now: number): string {
  if (retryAt === null) return "";
  const minutes = Math.max(1, Math.ceil((retryAt - now) / 60_000));
  return (
    " " +
    (minutes >= 120
      ? t("resumeAt", new Date(retryAt).toISOString().slice(0, 16).replace("T", " "))
      : minutes === 1
        ? t("resumeInMinute")
        : t("resumeInMinutes", minutes))
  );
}

/** One sentence (or two) that says what is wrong and what to do. */
export function describeError(error: WireError, now = Date.now()): string {
  switch (error.kind) {
    case "not-configured":
      return t("errorNotConfigured");
    case "unreachable":
      return t("errorUnreachable");
    case "bad-response":
      return t("errorBadResponse", error.status);
    case "missing-key":
      return t("errorMissingKey");
    case "invalid-key":
      return t("errorInvalidKey");
    case "origin-not-allowed":
      return t("errorOriginNotAllowed");
    case "forbidden":
      return t("errorForbidden", error.message);
    case "quota-exceeded":
      return t("errorQuotaExceeded") + until(error.retryAt, now);
    case "rate-limited":
      return t("errorRateLimited") + until(error.retryAt, now);
    case "invalid-request":
      return t("errorInvalidRequest", error.message);
    case "server-error":
      return t("errorServer", error.status);
  }
}
