/**
 * The exact messages of the contract. Clients match on them too (the extension tells
 * "origin not registered" from "key invalid"), so they live here, once.
 */
export const MESSAGES = {
  success: "Success",
  invalidIp: "Invalid IP address",
  conversionFailed: "Conversion failed",
  conversionNotFound: "Conversion not found",
  conversionIdRequired: "conversionId is required",
  invalidConversionIds: "Invalid conversion ids",
  invalidSelect: "Invalid select field",
  invalidJson: "Request body must be valid JSON",
  bodyTooDeep: "Request body is nested too deeply",
  ipsNotStrings: "ips must be an array of strings",
  ipsCount: "ips must contain between 1 and 5000 items",
  missingKey: "Missing API key",
  invalidKey: "Invalid API key",
  originNotAllowed: "Origin not allowed for this key",
  publicKeyForbidden: "Public keys can only convert addresses",
  tooManyRequests: "Too many requests",
  quotaExceeded: "Plan conversion limit exceeded",
  notFound: "Not found",
  methodNotAllowed: "Method not allowed",
  bodyTooLarge: "Request body too large",
  unsupportedMediaType: "Content-Type must be application/json",
  internal: "Internal server error",
  // decided by the API (docs/api.md), where the contract only says "400 naming the problem"
  conversionIdsNotArray: "conversionIds must be an array of strings",
  conversionIdsCount: "conversionIds must contain between 1 and 100 items",
  invalidOffset: "offset must be an integer of at least 0",
  invalidLimit: "limit must be an integer between 1 and 50",
  serverBusy: "Server busy, retry later",
  invalidLang: "lang must be a language tag such as en, de or pt-BR",
  bodyIncomplete: "Request body was not received completely",
  invalidForwardedFor: "X-Forwarded-For does not name a valid client address",
  tooManyConnections: "Too many connections from your address",
  expectationFailed: "Only Expect: 100-continue is supported",
} as const;

export type Message = (typeof MESSAGES)[keyof typeof MESSAGES];
