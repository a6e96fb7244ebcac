import { describe, expect, it } from "vitest";
import { Hono } from "hono";
import type { AppEnv } from "../app-types.js";
import { requestId } from "./request-id.js";
import { jsonBody } from "./json-body.js";
import { onError } from "./errors.js";
import { createLogger } from "../logger.js";

const app = new Hono<AppEnv>();
app.onError(onError(createLogger("silent")));
app.use(requestId());
app.post("/echo", jsonBody({ maxBytes: 64 }), (c) => c.json({ got: c.get("jsonBody") }));
app.post("/deep", jsonBody(), (c) => c.json({ got: c.get("jsonBody") }));

const post = (body: BodyInit | null, headers: Record<string, string> = { "content-type": "application/json" }) =>
  app.request("/echo", { method: "POST", body, headers });

describe("jsonBody", () => {
  it("parses a JSON body, with or without charset", async () => {
    expect(await (await post('{"a":1}')).json()).toEqual({ got: { a: 1 } });
    expect((await post("[1]", { "content-type": "Application/JSON; charset=utf-8" })).status).toBe(200);
  });

  it("415 without a JSON content type", async () => {
    const cases: Array<Record<string, string>> = [{}, { "content-type": "text/plain" }, { "content-type": "application/jsonx" }];
    for (const headers of cases) {
      const res = await post('{"a":1}', headers);
      expect(res.status).toBe(415);
      expect((await res.json()).message).toBe("Content-Type must be application/json");
    }
  });

  it("413 past the limit, by Content-Length or while streaming", async () => {
    const big = JSON.stringify({ a: "x".repeat(100) });
    const res = await post(big);
    expect(res.status).toBe(413);
    expect((await res.json()).message).toBe("Request body too large");
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    const streamed = await app.request("/echo", { method: "POST", body: stream, headers: { "content-type": "application/json" }, duplex: "half" } as RequestInit);
    expect(streamed.status).toBe(413);
  });

  it("reads JSON text led by a byte order mark", async () => {
    expect(await (await post('\uFEFF{"a":1}')).json()).toEqual({ got: { a: 1 } });
  });

  it("400 for bodies nested deeper than 16, before anything walks them", async () => {
    const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
    expect((await post(nested(16))).status).toBe(200);
    const deep = await app.request("/deep", { method: "POST", body: `{"a":${nested(5000)}}`, headers: { "content-type": "application/json" } });
    expect(deep.status).toBe(400);
    expect((await deep.json()).message).toBe("Request body is nested too deeply");
    const res = await post(nested(17));
    expect(res.status).toBe(400);
    expect((await res.json()).message).toBe("Request body is nested too deeply");
  });

  it("400 for malformed or empty JSON", async () => {
    for (const body of ["{", "", "{'a':1}"]) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect((await res.json()).message).toBe("Request body must be valid JSON");
    }
  });
});
