/**
 * The admin sign-in under guessing: wrong tokens from one address wait their turn and a growing
 * delay, but a dropped request gives up its place, and a full queue is answered 429 at once, so
 * neither keeps the admin out for long.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_MESSAGES } from "../../lib/schemas/admin.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { envelopeProblem, rawRequest } from "../helpers/raw-http.js";

const ADMIN_TOKEN = "abuse-suite-admin-token-0123456789";
let server: TestServer;

beforeAll(async () => {
  server = await startServer({ env: { IPATLAS_ADMIN_TOKEN: ADMIN_TOKEN } });
});
afterAll(() => server?.stop());

function signIn(token: string, signal?: AbortSignal): Promise<Response> {
  return fetch(`${server.url}/admin/api/session`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ token }),
    signal,
  });
}

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await work();
  return [result, performance.now() - started];
}

describe("admin sign-in lockout", () => {
  it("wrong tokens dropped after 100 ms do not hold back the right one", async () => {
    const dropped = Array.from({ length: 5 }, () => signIn("wrong-token", AbortSignal.timeout(100)).catch(() => null));
    await Promise.all(dropped);
    const [res, ms] = await timed(() => signIn(ADMIN_TOKEN));
    expect(res.status).toBe(200);
    console.log(`sign-in lockout: right token after 5 dropped wrong ones answered in ${Math.round(ms)} ms`);
    // before: 7.7 s, and ~10 s more for each further dropped token
    expect(ms).toBeLessThan(1_500);
  });

  it("past the queue limit an attempt is answered 429 at once; another address signs in meanwhile", async () => {
    const waiting = Array.from({ length: 3 }, () => signIn("wrong-token"));
    await new Promise((r) => setTimeout(r, 100));
    const [busy, ms] = await timed(() => signIn(ADMIN_TOKEN));
    expect(busy.status).toBe(429);
    expect((await busy.json()).message).toBe(ADMIN_MESSAGES.tooManySignIns);
    expect(busy.headers.get("retry-after")).toBe("1");
    expect(ms).toBeLessThan(500);

    const body = JSON.stringify({ token: ADMIN_TOKEN });
    const other = await rawRequest(
      { port: server.port, localAddress: "127.0.0.2", timeoutMs: 5_000 },
      `POST /admin/api/session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(other?.status).toBe(200);
    expect(envelopeProblem(other!)).toBeNull();

    for (const res of await Promise.all(waiting)) expect(res.status).toBe(401);
    expect((await signIn(ADMIN_TOKEN)).status).toBe(200);
  });
});
