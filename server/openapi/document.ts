/**
 * The OpenAPI 3.1 description of the public API, built from the zod wire schemas of lib/schemas
 * (zod-openapi renders them with zod's own JSON Schema output), so the document cannot drift from
 * what the server validates and the client parses. Served at /openapi.json, rendered at /docs.
 */
import { z } from "zod";
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiResponseObject } from "zod-openapi";
import {
  bulkConvertBodySchema,
  bulkConvertResponseSchema,
  bulkResultItemSchema,
  conversionSchema,
  getConversionResponseSchema,
  getConversionsBodySchema,
  getConversionsResponseSchema,
  healthResponseSchema,
  LIMITS,
  listConversionsResponseSchema,
} from "../../lib/schemas/api.js";
import { envelopeSchema, errorEnvelopeSchema, requestMetaSchema } from "../../lib/schemas/envelope.js";
import { IP_OBJECT_PATHS, ipObjectSchema } from "../../lib/schemas/ip-object.js";
import { MESSAGES } from "../../lib/schemas/messages.js";
import { DATA_SOURCES_HEADER } from "../../lib/schemas/data-sources.js";
import { API_VERSION } from "../middleware/request-id.js";

const EXAMPLE_IP_OBJECT = {
  ip: "8.8.8.8",
  type: "ipv4",
  is_eu: false,
  continent: {
    name: "North America",
    code: "NA",
    geoname_id: 6255149,
    country: {
      name: "United States",
      code: "US",
      geoname_id: 6252001,
      phone_code: "+1",
      capital: "Washington, D.C.",
      tld: ".us",
      subdivision: { name: "California", code: "CA" },
      city: {
        name: "Mountain View",
        geoname_id: 5375480,
        latitude: 37.4223,
        longitude: -122.085,
        accuracy_radius: null,
        metro_code: null,
        postal_code: null,
        timezone: { name: "America/Los_Angeles", time_now: "2026-11-23T02:00:00-08:00" },
      },
      flag: { img: "http://127.0.0.1:8787/flags/us.svg", emoji: "🇺🇸", emoji_unicode: "U+1F1FA U+1F1F8" },
      currency: { name: "US Dollar", code: "USD", symbol: "$" },
    },
  },
  registered_country: { name: "United States", code: "US", geoname_id: 6252001 },
  asn: { number: 15169, name: "Google LLC" },
  completion_time: { miliseconds: 0.012, seconds: 0.000012 },
};
const EXAMPLE_META = { reqId: "0193a1c2-7f5e-7b8a-9c3d-4e5f60718293", resTime: 0.41 };
const EXAMPLE_UUID = "0193a1c2-7f5e-7b8a-9c3d-4e5f60718293";

// Schemas that appear under their own name in components.schemas.
const IpObject = ipObjectSchema.meta({ id: "IpObject", description: "What one address converts to. Every key is always present; a nested object is null when none of its fields is known.", example: EXAMPLE_IP_OBJECT });
const RequestMeta = requestMetaSchema.meta({ id: "RequestMeta", description: "reqId (also the x-request-id header) and the server time in milliseconds" });
const Conversion = conversionSchema.meta({ id: "Conversion", description: "A stored conversion; data is the Ip object, or the part of it that select kept" });
const BulkResultItem = bulkResultItemSchema.meta({ id: "BulkResultItem", description: "ip echoes the request item as sent; conversion is null for an invalid address or a failed lookup" });
const ErrorEnvelope = errorEnvelopeSchema.meta({
  id: "ErrorEnvelope",
  description: "Every refusal: success false, message names the problem, data null or details (invalidIds, invalidFields)",
  example: { success: false, message: MESSAGES.invalidKey, code: 401, data: null, _req: EXAMPLE_META },
});

/** The envelope around `data` with the shared request meta. */
const envelope = <T extends z.ZodType>(data: T, id: string, example?: unknown) =>
  z
    .object({ success: z.boolean(), message: z.string(), code: z.number().int(), data, _req: RequestMeta })
    .meta({ id, ...(example === undefined ? {} : { example: { success: true, message: MESSAGES.success, code: 200, data: example, _req: EXAMPLE_META } }) });

// Response headers, each described once.
const headerSchemas = {
  requestId: z.string().meta({ description: "the request's id, also `_req.reqId`" }),
  apiVersion: z.literal(API_VERSION).meta({ description: "the API version" }),
  conversionId: z.uuid().meta({ description: "the stored conversion's id (uuid v7), also on the 400 Invalid IP address answer" }),
  dataSources: z.string().meta({ description: "the data to credit where results are shown: `DB-IP`, `MaxMind` or `DB-IP, MaxMind`", example: "DB-IP" }),
  rateLimitLimit: z.string().meta({ description: "the plan's conversions per month (limited plans only)", example: "10000" }),
  rateLimitRemaining: z.string().meta({ description: "conversions left this month (limited plans only)", example: "9876" }),
  rateLimitReset: z.string().meta({ description: "epoch seconds of the next period's start, the 1st of next month 00:00 UTC (limited plans only)", example: "1798761600" }),
  retryAfter: z.string().meta({ description: "seconds to wait: to the end of the rate-limit window, or to the next quota period", example: "42" }),
};
const commonHeaders = { "x-request-id": headerSchemas.requestId, "x-api-version": headerSchemas.apiVersion };
const quotaHeaders = {
  "X-RateLimit-Limit": headerSchemas.rateLimitLimit.optional(),
  "X-RateLimit-Remaining": headerSchemas.rateLimitRemaining.optional(),
  "X-RateLimit-Reset": headerSchemas.rateLimitReset.optional(),
};

const json = (schema: z.ZodType) => ({ "application/json": { schema } });

function errorResponse(description: string, messages: readonly string[], headers: Record<string, z.ZodType> = {}): ZodOpenApiResponseObject {
  return {
    description: `${description}. message: ${messages.map((m) => `"${m}"`).join(", ")}`,
    headers: z.object({ ...commonHeaders, ...headers }),
    content: json(ErrorEnvelope),
  };
}

const errors = {
  400: (messages: readonly string[], headers?: Record<string, z.ZodType>) => errorResponse("Bad request", messages, headers),
  401: errorResponse("No key, an unknown or revoked key, or a public key used from an origin not registered for it", [MESSAGES.missingKey, MESSAGES.invalidKey, MESSAGES.originNotAllowed]),
  403: errorResponse("A public key on an endpoint that only secret keys may use", [MESSAGES.publicKeyForbidden]),
  405: errorResponse("Method not allowed (the Allow header lists the allowed ones)", [MESSAGES.methodNotAllowed]),
  413: errorResponse(`Body over ${LIMITS.bodyBytes} bytes`, [MESSAGES.bodyTooLarge]),
  415: errorResponse("Body without Content-Type: application/json", [MESSAGES.unsupportedMediaType]),
  429: errorResponse(
    "A public key over its per-minute rate limit, or a request that does not fit in the plan's monthly conversions (refused whole; nothing stored or counted)",
    [MESSAGES.tooManyRequests, MESSAGES.quotaExceeded],
    { "Retry-After": headerSchemas.retryAfter, ...quotaHeaders },
  ),
  500: errorResponse("Unexpected failure", [MESSAGES.internal]),
};

const keyHeader = z.object({
  "x-api-key": z.string().meta({ description: "a secret key (ipa_sk_…), or a public key (ipa_pk_…) from a registered website's Origin", example: "ipa_sk_0123456789abcdefghijklmnopqrstuv" }),
});

const selectParam = z
  .string()
  .optional()
  .meta({
    description: `comma-separated leaf paths of the Ip object to keep (may be repeated); empty = all. One of: ${IP_OBJECT_PATHS.join(", ")}`,
    example: "ip,continent.country.code,asn.number",
  });

const keyed = (operation: ZodOpenApiOperationObject, extraErrors: Record<string, ZodOpenApiResponseObject>): ZodOpenApiOperationObject => ({
  ...operation,
  security: [{ apiKey: [] }],
  requestParams: { ...operation.requestParams, header: keyHeader },
  responses: { ...operation.responses, 401: errors[401], 405: errors[405], ...extraErrors, 500: errors[500] },
});

const convertHeaders = { ...commonHeaders, "x-conversion-id": headerSchemas.conversionId, [DATA_SOURCES_HEADER]: headerSchemas.dataSources, ...quotaHeaders };

/** Built once: zod registers each `id` globally, and the document never changes while running. */
export const openApiDocument = buildDocument();

function buildDocument() {
  return createDocument({
    openapi: "3.1.0",
    info: {
      title: "IP Atlas API",
      version: API_VERSION,
      description:
        "Self-hostable IP geolocation. Every answer is the envelope `{success, message, code, data, _req}`; `success` is `code < 400`. " +
        "Every convert request is stored and counted against the project's plan. See docs/api.md for the decisions behind each rule.",
      license: { name: "MIT", identifier: "MIT" },
    },
    components: {
      securitySchemes: { apiKey: { type: "apiKey", in: "header", name: "x-api-key" } },
      schemas: { IpObject, Conversion, BulkResultItem, ErrorEnvelope, RequestMeta },
    },
    tags: [{ name: "convert" }, { name: "conversions" }, { name: "service" }],
    paths: {
      "/convert": {
        get: keyed(
          {
            operationId: "convert",
            tags: ["convert"],
            summary: "Geolocate one address (default: the caller's own)",
            description: "Stores the conversion and counts one against the plan. A failed lookup answers 200 with message \"Conversion failed\" and data null.",
            requestParams: {
              query: z.object({
                ip: z.string().optional().meta({ description: "IPv4 or IPv6; omitted or blank = the caller's address", example: "8.8.8.8" }),
                lang: z.string().optional().meta({ description: "language of the names (e.g. de); else Accept-Language, else English (docs/api.md)", example: "de" }),
              }),
            },
            responses: {
              200: { description: `message "${MESSAGES.success}" (data: Ip object) or "${MESSAGES.conversionFailed}" (data: null)`, headers: z.object(convertHeaders), content: json(envelope(IpObject.nullable(), "ConvertResponse", EXAMPLE_IP_OBJECT)) },
            },
          },
          { 400: errors[400]([MESSAGES.invalidIp], { "x-conversion-id": headerSchemas.conversionId, ...quotaHeaders }), 429: errors[429] },
        ),
        post: keyed(
          {
            operationId: "bulkConvert",
            tags: ["convert"],
            summary: `Geolocate 1 to ${LIMITS.ipsPerRequest} addresses, answered in request order`,
            description: "Every item is stored and counted; a request that does not fit in what the plan has left is refused whole (429).",
            requestBody: { required: true, content: { "application/json": { schema: bulkConvertBodySchema.meta({ example: { ips: ["8.8.8.8", "2001:4860:4860::8888", "nope"] } }) } } },
            responses: {
              200: { description: "one item per address", headers: z.object({ ...commonHeaders, [DATA_SOURCES_HEADER]: headerSchemas.dataSources, ...quotaHeaders }), content: json(envelope(bulkConvertResponseSchema, "BulkConvertResponse", [{ ip: "8.8.8.8", conversion: EXAMPLE_IP_OBJECT, conversionId: EXAMPLE_UUID }])) },
            },
          },
          { 400: errors[400]([MESSAGES.invalidJson, MESSAGES.bodyTooDeep, MESSAGES.ipsNotStrings, MESSAGES.ipsCount]), 413: errors[413], 415: errors[415], 429: errors[429] },
        ),
      },
      "/conversions/get": {
        get: keyed(
          {
            operationId: "getConversion",
            tags: ["conversions"],
            summary: "One stored conversion of the key's project (secret keys only)",
            requestParams: { query: z.object({ conversionId: z.string().meta({ description: "the uuid from x-conversion-id or conversionId (case-insensitive)", example: EXAMPLE_UUID }), select: selectParam }) },
            responses: { 200: { description: `message "${MESSAGES.success}", or "${MESSAGES.conversionNotFound}" with data null`, headers: z.object(commonHeaders), content: json(envelope(getConversionResponseSchema, "GetConversionResponse")) } },
          },
          { 400: errors[400]([MESSAGES.conversionIdRequired, MESSAGES.invalidSelect]), 403: errors[403] },
        ),
        post: keyed(
          {
            operationId: "getConversions",
            tags: ["conversions"],
            summary: `Up to ${LIMITS.idsPerRequest} stored conversions (secret keys only); unknown ids are left out`,
            requestParams: { query: z.object({ select: selectParam }) },
            requestBody: { required: true, content: { "application/json": { schema: getConversionsBodySchema.meta({ example: { conversionIds: [EXAMPLE_UUID] } }) } } },
            responses: { 200: { description: "the conversions found", headers: z.object(commonHeaders), content: json(envelope(getConversionsResponseSchema, "GetConversionsResponse")) } },
          },
          {
            400: errors[400]([MESSAGES.invalidJson, MESSAGES.conversionIdsNotArray, MESSAGES.conversionIdsCount, MESSAGES.invalidConversionIds, MESSAGES.invalidSelect]),
            403: errors[403],
            413: errors[413],
            415: errors[415],
          },
        ),
      },
      "/conversions/list": {
        get: keyed(
          {
            operationId: "listConversions",
            tags: ["conversions"],
            summary: "The project's stored conversions, newest first (secret keys only)",
            requestParams: {
              query: z.object({
                offset: z.string().regex(/^\d+$/).optional().meta({ description: "rows to skip (default 0)", example: "0" }),
                limit: z.string().regex(/^\d+$/).optional().meta({ description: `rows, 1 to ${LIMITS.listLimitMax} (default ${LIMITS.listLimitDefault})`, example: "50" }),
                ipSearch: z.string().optional().meta({ description: "a CIDR range (10.0.0.0/8) or a prefix of the address text (2001:db8:)", example: "10.0.0.0/8" }),
                select: selectParam,
              }),
            },
            responses: { 200: { description: "one page", headers: z.object(commonHeaders), content: json(envelope(listConversionsResponseSchema, "ListConversionsResponse")) } },
          },
          { 400: errors[400]([MESSAGES.invalidOffset, MESSAGES.invalidLimit, MESSAGES.invalidSelect]), 403: errors[403] },
        ),
      },
      "/healthz": {
        get: {
          operationId: "health",
          tags: ["service"],
          summary: "Liveness and the geolocation databases loaded (no key)",
          responses: { 200: { description: "serving", headers: z.object(commonHeaders), content: json(envelope(healthResponseSchema, "HealthResponse")) }, 405: errors[405] },
        },
      },
      "/flags/{file}": {
        get: {
          operationId: "flag",
          tags: ["service"],
          summary: "A country flag SVG, where flag.img points (no key; cached for a year)",
          requestParams: { path: z.object({ file: z.string().regex(/^[a-z]{2}(-[a-z]{2,3})?\.svg$/).meta({ example: "us.svg" }) }) },
          responses: {
            200: { description: "the flag", content: { "image/svg+xml": { schema: z.string() } } },
            404: errorResponse("No such flag", [MESSAGES.notFound]),
          },
        },
      },
      "/openapi.json": {
        get: {
          operationId: "openApi",
          tags: ["service"],
          summary: "This document (no key); rendered for people at /docs",
          responses: { 200: { description: "OpenAPI 3.1", content: { "application/json": { schema: z.object({ openapi: z.string() }).loose() } } } },
        },
      },
    },
  });
}
