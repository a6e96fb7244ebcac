/**
 * /openapi.json: a valid OpenAPI 3.1 document (swagger-parser), and the real server's answers
 * match it: status, JSON body (ajv, JSON Schema 2020-12) and the headers it promises. The typed
 * client (lib/client) is run through the same check: its requests must be documented operations
 * and the answers it parses must be documented answers. /docs renders with Swagger UI, served locally.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import SwaggerParser from "@apidevtools/swagger-parser";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { createClient } from "../../lib/client/index.js";
import { startServer, type TestServer } from "../helpers/server.js";

type Json = Record<string, any>;

describe("OpenAPI document", () => {
  let server: TestServer;
  let key: string;
  let freeKey: string;
  let document: Json;
  let dereferenced: Json;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  const checked = new Set<string>();

  beforeAll(async () => {
    server = await startServer();
    key = (await server.cli("project", "create", "--name", "openapi", "--plan", "growth")).secretKey;
    freeKey = (await server.cli("project", "create", "--name", "free", "--plan", "free")).secretKey;
    document = await (await fetch(`${server.url}/openapi.json`)).json();
    dereferenced = (await SwaggerParser.dereference(structuredClone(document) as never)) as Json;
  }, 60_000);
  afterAll(() => server?.stop());

  /** The documented operation for a request URL, its path template resolved; a 405 is documented on the path's operations. */
  function operationFor(method: string, url: URL, status: number): Json {
    for (const [template, item] of Object.entries(dereferenced.paths as Json)) {
      const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`);
      if (!pattern.test(url.pathname)) continue;
      if (item[method.toLowerCase()]) return item[method.toLowerCase()];
      if (status === 405) return Object.values(item)[0] as Json;
    }
    throw new Error(`${method} ${url.pathname} is not in the document`);
  }

  /** Checks one real exchange against the document; returns the body. */
  async function conforms(method: string, url: URL, response: Response, requestBody?: unknown): Promise<unknown> {
    const operation = operationFor(method, url, response.status);
    const parameters: Json[] = operation.parameters ?? [];
    for (const name of url.searchParams.keys()) {
      expect(parameters.some((p) => p.in === "query" && p.name === name), `${method} ${url.pathname}: query ${name} documented`).toBe(true);
    }
    // a body the server accepted must be one the document allows (refused ones are refused on purpose)
    if (requestBody !== undefined && operation.requestBody && response.status < 400) {
      const validate = ajv.compile(operation.requestBody.content["application/json"].schema);
      expect(validate(requestBody), `${method} ${url.pathname} request body: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
    const documented = operation.responses[String(response.status)];
    expect(documented, `${method} ${url.pathname} ${response.status} documented`).toBeDefined();
    const text = await response.text();
    const media = documented.content?.["application/json"];
    let body: unknown = text;
    if (media) {
      expect(response.headers.get("content-type")).toMatch(/^application\/json/);
      body = JSON.parse(text);
      const validate = ajv.compile(media.schema);
      expect(validate(body), `${method} ${url.pathname} ${response.status}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
    for (const [name, header] of Object.entries((documented.headers ?? {}) as Json)) {
      const value = response.headers.get(name);
      if (header.required) expect(value, `${method} ${url.pathname} ${response.status}: header ${name}`).not.toBeNull();
      if (value !== null && header.schema) {
        const validate = ajv.compile(header.schema);
        expect(validate(value), `${method} ${url.pathname} header ${name}=${value}: ${ajv.errorsText(validate.errors)}`).toBe(true);
      }
    }
    checked.add(`${method} ${operationKey(url)} ${response.status}`);
    return body;
  }
  const operationKey = (url: URL) => url.pathname;

  async function call(method: string, path: string, options: { key?: string | null; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {}) {
    const url = new URL(path, server.url);
    const headers: Record<string, string> = { ...options.headers };
    if (options.key !== null) headers["x-api-key"] = options.key ?? key;
    if (options.body !== undefined || options.rawBody !== undefined) headers["content-type"] ??= "application/json";
    const response = await fetch(url, { method, headers, body: options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body)) });
    return conforms(method, url, response, options.body);
  }

  it("is valid OpenAPI 3.1 (swagger-parser) with every endpoint, the key header and the error envelope", async () => {
    const api = await SwaggerParser.validate(structuredClone(document) as never);
    expect(document.openapi).toBe("3.1.0");
    expect(Object.keys(api.paths!).sort()).toEqual(["/conversions/get", "/conversions/list", "/convert", "/flags/{file}", "/healthz", "/openapi.json"]);
    expect(document.components.securitySchemes.apiKey).toEqual({ type: "apiKey", in: "header", name: "x-api-key" });
    expect(Object.keys(document.components.schemas)).toEqual(expect.arrayContaining(["IpObject", "ErrorEnvelope", "Conversion", "BulkResultItem"]));
    const get = dereferenced.paths["/convert"].get;
    expect(Object.keys(get.responses).sort()).toEqual(["200", "400", "401", "405", "429", "500"]);
    expect(Object.keys(get.responses["200"].headers)).toEqual(expect.arrayContaining(["x-request-id", "x-conversion-id", "x-data-sources", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"]));
    expect(Object.keys(get.responses["429"].headers)).toContain("Retry-After");
    expect(get.responses["200"].content["application/json"].schema.example.data.ip).toBe("8.8.8.8");
  });

  it("the running server's answers match it", async () => {
    const one = (await call("GET", "/convert?ip=8.8.8.8")) as Json;
    expect(one.data.ip).toBe("8.8.8.8");
    await call("GET", "/convert?ip=nope");
    await call("GET", "/convert", { key: null });
    await call("GET", "/convert?ip=1.1.1.1", { key: "ipa_sk_000000000000000000000000000000000" });
    const bulk = (await call("POST", "/convert", { body: { ips: ["8.8.8.8", "nope", "2001:4860:4860::8888"] } })) as Json;
    await call("POST", "/convert", { body: { ips: [] } });
    await call("POST", "/convert", { rawBody: "{" });
    await call("POST", "/convert", { rawBody: "x", headers: { "content-type": "text/plain" } });
    await call("PUT", "/convert");
    const id = bulk.data[0].conversionId;
    await call("GET", `/conversions/get?conversionId=${id}&select=ip,continent.country.code`);
    await call("GET", `/conversions/get?conversionId=${id}&select=nope`);
    await call("GET", "/conversions/get");
    await call("POST", "/conversions/get", { body: { conversionIds: [id, "0193a1c2-7f5e-7b8a-9c3d-4e5f60718293"] } });
    await call("POST", "/conversions/get", { body: { conversionIds: ["not-a-uuid"] } });
    await call("GET", "/conversions/list?offset=0&limit=2&ipSearch=8.8.0.0/16&select=ip");
    await call("GET", "/conversions/list?limit=99");
    await call("GET", "/healthz", { key: null });
    await call("GET", "/flags/us.svg", { key: null });
    await call("GET", "/flags/zz.svg", { key: null });
    // a free plan over its limit: 429 with Retry-After and the quota headers
    await call("POST", "/convert", { key: freeKey, body: { ips: Array.from({ length: 1001 }, () => "8.8.8.8") } });
    expect([...checked]).toEqual(
      expect.arrayContaining(["GET /convert 200", "GET /convert 400", "GET /convert 401", "POST /convert 200", "POST /convert 400", "POST /convert 415", "PUT /convert 405", "POST /convert 429", "GET /conversions/get 200", "GET /conversions/get 400", "POST /conversions/get 200", "POST /conversions/get 400", "GET /conversions/list 200", "GET /conversions/list 400", "GET /healthz 200", "GET /flags/us.svg 200", "GET /flags/zz.svg 404"]),
    );
  }, 60_000);

  it("the typed client's requests are documented operations and its answers documented answers", async () => {
    const exchanges: Promise<unknown>[] = [];
    const recordingFetch: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      const body = request.method === "POST" ? await request.clone().json() : undefined;
      const response = await fetch(request);
      exchanges.push(conforms(request.method, new URL(request.url), response.clone(), body));
      return response;
    };
    const client = createClient({ baseUrl: server.url, apiKey: key, fetch: recordingFetch });
    expect((await client.convert("8.8.8.8")).data?.asn?.number).toBe(15169);
    expect((await client.convert()).data?.ip).toBe("127.0.0.1");
    expect((await client.bulkConvert(["1.1.1.1", "nope"])).data).toHaveLength(2);
    await expect(client.convert("nope")).rejects.toMatchObject({ kind: "invalid-request" });
    await expect(createClient({ baseUrl: server.url, apiKey: freeKey, fetch: recordingFetch }).bulkConvert(Array(1001).fill("8.8.8.8"))).rejects.toMatchObject({ kind: "quota-exceeded" });
    await Promise.all(exchanges);
    expect(exchanges).toHaveLength(5);
  }, 60_000);

  it("/docs renders the document with Swagger UI served by this server", async () => {
    const page = await fetch(`${server.url}/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources.every((src) => src.startsWith("/docs/"))).toBe(true);
    for (const src of sources) expect((await fetch(`${server.url}${src}`)).status, src).toBe(200);
    expect(await (await fetch(`${server.url}/docs/swagger-ui/init.js`)).text()).toContain('url: "/openapi.json"');
    expect((await fetch(`${server.url}/docs/swagger-ui/package.json`)).status).toBe(404);
  });
});
