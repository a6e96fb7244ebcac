/**
 * An ApiError as it crosses `runtime.sendMessage` (structured clone drops the class), and the
 * plain words each kind of failure gets in the options page, popup and hover card.
 */
import type { ApiError, ApiErrorKind } from "../../lib/client/index.js";

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
  return minutes >= 120
    ? ` Lookups resume at ${new Date(retryAt).toISOString().slice(0, 16).replace("T", " ")} UTC.`
    : ` Lookups resume in about ${minutes} minute${minutes === 1 ? "" : "s"}.`;
}

/** One sentence (or two) that says what is wrong and what to do. */
export function describeError(error: WireError, now = Date.now()): string {
  switch (error.kind) {
    case "not-configured":
      return error.message + ".";
    case "unreachable":
      return "The IP Atlas server could not be reached: check the Server URL and that the server is running.";
    case "bad-response":
      return `That address does not answer like an IP Atlas server (HTTP ${error.status}): check the Server URL.`;
    case "missing-key":
      return "No API key was sent: paste your public key (ipa_pk_…) into API key.";
    case "invalid-key":
      return "The server does not know this API key (unknown, revoked or rolled): paste a current public key.";
    case "origin-not-allowed":
      return "This extension's origin is not registered for the key: add it as a website of the key's project.";
    case "forbidden":
      return `The server refused: ${error.message}.`;
    case "quota-exceeded":
      return "The project's monthly conversion quota is used up." + until(error.retryAt, now);
    case "rate-limited":
      return "Too many lookups in a short time: the extension pauses." + until(error.retryAt, now);
    case "invalid-request":
      return `The server rejected the request: ${error.message}.`;
    case "server-error":
      return `The server had an internal error (HTTP ${error.status}); the extension will try again later.`;
  }
}
