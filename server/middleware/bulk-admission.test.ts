import { describe, expect, it } from "vitest";
import { Hono } from "hono";
import type { AppEnv } from "../app-types.js";
import type { KeyAuth } from "../storage/types.js";
import { AdmissionQueue, bulkAdmission } from "./bulk-admission.js";
import { onError } from "./errors.js";
import { createLogger } from "../logger.js";
import { ApiError } from "./envelope.js";

/** A handler that holds each request until the test releases it, in arrival order. */
function gatedApp(queue: AdmissionQueue) {
  const started: string[] = [];
  const gates: Array<() => void> = [];
  const app = new Hono<AppEnv>();
  app.onError(onError(createLogger("silent")));
  app.use((c, next) => {
    c.set("auth", { project: { id: c.req.header("x-project")! } } as KeyAuth);
    return next();
  });
  app.post("/convert", bulkAdmission(queue), async (c) => {
    started.push(`${c.req.header("x-project")}:${c.req.header("x-n")}`);
    await new Promise<void>((resolve) => gates.push(resolve));
    return c.text("done");
  });
  const send = (project: string, n: number, bytes = 80_000) =>
    app.request("/convert", { method: "POST", headers: { "x-project": project, "x-n": String(n), "content-length": String(bytes) }, body: "x".repeat(bytes) });
  const settle = () => new Promise((resolve) => setTimeout(resolve, 5));
  return { app, send, started, release: async () => (gates.shift()!(), settle()), settle };
}

describe("AdmissionQueue", () => {
  it("runs one request at a time when each fills the capacity, and serves the waiting round-robin between keys", async () => {
    const { send, started, release, settle } = gatedApp(new AdmissionQueue({ capacity: 80_000, maxQueued: 10, maxQueuedPerKey: 5 }));
    // one key floods first, another key arrives after it
    const answers = [send("a", 1), send("a", 2), send("a", 3), send("a", 4), send("b", 1), send("b", 2)];
    await settle();
    expect(started).toEqual(["a:1"]);
    for (let i = 0; i < 5; i++) await release();
    // b is not served after all of a's queue: keys take turns
    expect(started).toEqual(["a:1", "a:2", "b:1", "a:3", "b:2", "a:4"]);
    await release();
    expect(await Promise.all(answers.map(async (a) => (await a).status))).toEqual([200, 200, 200, 200, 200, 200]);
  });

  it("refuses past the queue bounds with a 503 envelope and Retry-After, and frees the slot of a finished request", async () => {
    const { send, release, settle } = gatedApp(new AdmissionQueue({ capacity: 80_000, maxQueued: 2, maxQueuedPerKey: 1 }));
    const running = send("a", 1);
    const waiting = send("a", 2);
    await settle();
    const perKey = await send("a", 3);
    expect(perKey.status).toBe(503);
    expect(Number(perKey.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await perKey.json()).toMatchObject({ success: false, code: 503, message: "Server busy, retry later", data: null });
    const other = send("b", 1);
    await settle();
    expect((await send("c", 1)).status).toBe(503); // queue full
    await release();
    await release();
    await release();
    expect((await running).status).toBe(200);
    expect((await waiting).status).toBe(200);
    expect((await other).status).toBe(200);
  });

  it("reports the weight running and the requests waiting, and marks a refused request for the metrics", async () => {
    const queue = new AdmissionQueue({ capacity: 80_000, maxQueued: 1 });
    const { app, send, release, settle } = gatedApp(queue);
    const refused: Array<boolean | undefined> = [];
    const outer = new Hono<AppEnv>();
    outer.use(async (c, next) => {
      await next();
      refused.push(c.get("admissionRefused"));
    });
    outer.route("/", app);
    expect([queue.runningWeight, queue.waiting]).toEqual([0, 0]);
    const running = send("a", 1, 50_000);
    const waiting = send("b", 1, 40_000);
    await settle();
    expect([queue.runningWeight, queue.waiting]).toEqual([50_000, 1]);
    const busy = await outer.request("/convert", { method: "POST", headers: { "x-project": "c", "content-length": "40000" }, body: "x".repeat(40_000) });
    expect(busy.status).toBe(503);
    expect(refused).toEqual([true]);
    await release();
    expect([queue.runningWeight, queue.waiting]).toEqual([40_000, 0]);
    await release();
    expect([queue.runningWeight, queue.waiting]).toEqual([0, 0]);
    expect([(await running).status, (await waiting).status]).toEqual([200, 200]);
  });

  it("admits by weight: light requests run together, a heavy one waits for them and is not passed over", async () => {
    const { send, started, release, settle } = gatedApp(new AdmissionQueue({ capacity: 80_000, maxQueued: 10, maxQueuedPerKey: 5 }));
    const answers = [send("a", 1, 30_000), send("b", 1, 30_000), send("c", 1, 80_000), send("d", 1, 20_000)];
    await settle();
    // a and b fit together; c needs the whole capacity, and d, behind c, waits its turn
    expect(started).toEqual(["a:1", "b:1"]);
    await release();
    expect(started).toEqual(["a:1", "b:1"]);
    await release();
    expect(started).toEqual(["a:1", "b:1", "c:1"]);
    await release();
    expect(started).toEqual(["a:1", "b:1", "c:1", "d:1"]);
    await release();
    expect(await Promise.all(answers.map(async (a) => (await a).status))).toEqual([200, 200, 200, 200]);
  });

  it("a body heavier than the capacity runs alone instead of never", async () => {
    const { send, started, release, settle } = gatedApp(new AdmissionQueue({ capacity: 50_000 }));
    const answers = [send("a", 1, 80_000), send("b", 1, 20_000)];
    await settle();
    expect(started).toEqual(["a:1"]);
    await release();
    expect(started).toEqual(["a:1", "b:1"]);
    await release();
    expect(await Promise.all(answers.map(async (a) => (await a).status))).toEqual([200, 200]);
  });

  it("refuses a request that waited longer than maxWaitMs, and the queue keeps working", async () => {
    const queue = new AdmissionQueue({ capacity: 100, maxWaitMs: 30 });
    const done = await queue.acquire("a");
    await expect(queue.acquire("b")).rejects.toBeInstanceOf(ApiError);
    done();
    const next = await queue.acquire("b");
    next();
    next(); // a second call is harmless
    const again = await queue.acquire("c");
    again();
  });

  it("lets a GET and a small POST through untouched; a POST without a declared length queues", async () => {
    const app = new Hono<AppEnv>();
    app.onError(onError(createLogger("silent")));
    app.use((c, next) => {
      c.set("auth", { project: { id: "p" } } as KeyAuth);
      return next();
    });
    const queue = new AdmissionQueue({ capacity: 100_000, maxQueued: 0 });
    const hold = await queue.acquire("x");
    app.on(["GET", "POST"], "/convert", bulkAdmission(queue), (c) => c.text("ok"));
    expect((await app.request("/convert")).status).toBe(200);
    expect((await app.request("/convert", { method: "POST", headers: { "content-length": "40" }, body: '{"ips":["8.8.8.8","1.1.1.1","9.9.9.9"]}' })).status).toBe(200);
    expect((await app.request("/convert", { method: "POST", body: "x".repeat(20_000) })).status).toBe(503);
    hold();
  });
});
