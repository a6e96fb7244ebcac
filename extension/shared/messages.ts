/**
 * What the content script, popup and options page ask the background worker, and what it answers.
 * One table of request → response types, so both ends are checked by the compiler.
 */
import type { QuotaInfo } from "../../lib/client/index.js";
import type { IpObject } from "../../lib/schemas/ip-object.js";
import type { WireError } from "./wire-error.js";

export interface LookupRequest {
  type: "lookup";
  /** canonical public addresses; the worker ignores anything else */
  ips: string[];
}
export interface OwnIpRequest {
  type: "own-ip";
}
export interface TabServerRequest {
  type: "tab-server";
  tabId: number;
  /** the tab's URL, for the host and the DNS fallback */
  url: string;
}
export type WorkerRequest = LookupRequest | OwnIpRequest | TabServerRequest;

export interface LookupResponse {
  results: Record<string, IpObject | null>;
  error: WireError | null;
  /** the project's quota as the server last reported it; null until known or on an unlimited plan */
  quota?: QuotaInfo | null;
}
export interface OwnIpResponse {
  data: IpObject | null;
  error: WireError | null;
}
export interface TabServerResponse {
  host: string | null;
  /** the address the page came from, null when unknown (cached page, browser page) */
  ip: string | null;
  /** how the ip was learnt */
  source: "webRequest" | "dns" | null;
  isPublic: boolean;
  data: IpObject | null;
  error: WireError | null;
}

export interface WorkerResponses {
  lookup: LookupResponse;
  "own-ip": OwnIpResponse;
  "tab-server": TabServerResponse;
}

export type ResponseTo<R extends WorkerRequest> = WorkerResponses[R["type"]];

/** `runtime.sendMessage`, typed by the table above. */
export function askWorker<R extends WorkerRequest>(
  send: (message: unknown) => Promise<unknown>,
  request: R,
): Promise<ResponseTo<R>> {
  return send(request) as Promise<ResponseTo<R>>;
}

export function isWorkerRequest(value: unknown): value is WorkerRequest {
  const type = (value as { type?: unknown } | null)?.type;
  return type === "lookup" || type === "own-ip" || type === "tab-server";
}

/**
 * Worker → content script: show the card for the first address in `text` (context menu on a
 * selection or link), or in the page's selection when `text` is absent (keyboard shortcut).
 * The content script answers whether it could; if not, the worker opens the popup's lookup box.
 */
export interface ShowLookupMessage {
  type: "show-lookup";
  text?: string;
}
export interface ShowLookupResponse {
  shown: boolean;
  /** what was looked at, for the lookup box */
  text: string;
}

export function isShowLookupMessage(value: unknown): value is ShowLookupMessage {
  return (value as { type?: unknown } | null)?.type === "show-lookup";
}
