import { describe, expect, it } from "vitest";
import { Hono } from "hono";
import type { AppEnv } from "../app-types.js";
import { accessLog, writeAccessLine, type AccessLogLine } from "./access-log.js";
import { createLogger } from "../logger.js";
import { requestId } from "./request-id.js";

function app(lines: string[], level: "info" | "warn" = "info") {
  const hono = new Hono<AppEnv>();
  hono.use("*", requestId());
  hono.use("*", accessLog({ log: createLogger(level, (line) => lines.push(line)) }));
  hono.use("/items/*", async (c, next) => {
    c.set("auth", { key: { id: "key-1" }, project: { id: "project-1" }, website: null } as never);
    c.set("clientIp", "203.0.113.7");
    await next();
  });
  hono.post("/items/:id", (c) => c.json({ ok: true }));
  return hono;
}

/** what @hono/node-server passes as env: the request's socket */
const NODE = { incoming: { socket: { remoteAddress: "198.51.100.1", remotePort: 1234, remoteFamily: "IPv4" } } };

describe("accessLog", () => {
  it("one JSON line per request: id, route pattern, status, duration, project and key id, client, bytes; never the key", async () => {
    const lines: string[] = [];
    const res = await app(lines).request("/items/42?x=1", { method: "POST", body: "{}", headers: { "content-length": "2", "x-api-key": "ipa_sk_secretsecret" } }, NODE);
    expect(res.status).toBe(200);
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!);
    expect(line).toEqual({
      level: "info",
      time: expect.any(String),
      msg: "request",
      reqId: res.headers.get("x-request-id"),
      method: "POST",
      route: "/items/:id",
      path: "/items/42",
      status: 200,
      durationMs: expect.any(Number),
      projectId: "project-1",
      keyId: "key-1",
      clientIp: "203.0.113.7",
      bytesIn: 2,
      bytesOut: null,
    });
    expect(lines[0]).not.toContain("ipa_sk_");
  });

  it("unmatched routes have no route; nothing below the level", async () => {
    const lines: string[] = [];
    await app(lines).request("/nope", {}, NODE);
    expect(JSON.parse(lines[0]!)).toMatchObject({ route: null, path: "/nope", status: 404, keyId: null, projectId: null });
    const quiet: string[] = [];
    await app(quiet, "warn").request("/nope", {}, NODE);
    expect(quiet).toEqual([]);
    // in-process requests (the start-up warm-up) are not logged
    const warmUp: string[] = [];
    await app(warmUp).request("/nope");
    expect(warmUp).toEqual([]);
  });

  it("writes the line pino writes for the same fields, whatever the text in them", () => {
    const lines: string[] = [];
    const log = createLogger("info", (line) => lines.push(line));
    const fields: AccessLogLine[] = [
      { reqId: "r-1", method: "GET", route: "/convert", path: "/convert", status: 200, durationMs: 0.125, projectId: "p", keyId: "k", clientIp: "::1", bytesIn: null, bytesOut: 1439 },
      { reqId: "r-2", method: "POST", route: null, path: '/a "quoted" \\ path\n\twith ünïcödé and \u0001 a control character', status: 404, durationMs: 12, projectId: null, keyId: null, clientIp: null, bytesIn: 0, bytesOut: null },
    ];
    for (const line of fields) {
      writeAccessLine(log, line);
      log.info("request", line);
    }
    const untimed = (line: string) => line.replace(/"time":"[^"]*"/, '"time":""');
    expect(lines).toHaveLength(4);
    expect(untimed(lines[0]!)).toBe(untimed(lines[1]!));
    expect(untimed(lines[2]!)).toBe(untimed(lines[3]!));
    expect(JSON.parse(lines[2]!).path).toBe(fields[1]!.path);
  });
});
