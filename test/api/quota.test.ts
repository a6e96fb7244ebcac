/** Plan quotas over HTTP (docs/api.md#plans-and-quota): headers, whole-request refusal, exact counting under concurrency, plan changes. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendNames } from "../helpers/backends.js";
import { MESSAGES } from "../../lib/schemas/messages.js";
import { expectEnvelope, startApi, type ApiHarness } from "../helpers/api.js";

const nextMonthEpoch = () => {
  const now = new Date();
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) / 1000;
};

/** CLI runs and hundreds of requests on a shared two-core machine */
const SLOW = 120_000;

describe.each(backendNames)("quota (%s)", (backendName) => {
  let api: ApiHarness;

  beforeAll(async () => {
    api = await startApi(backendName);
  });
  afterAll(() => api.stop());

  it("1200 parallel converts on a free plan: exactly 1000 accepted and 1000 stored", async () => {
    const { id, secretKey: key } = await api.project("free", "crowd");
    const answers = await Promise.all(
      Array.from({ length: 1200 }, (_, i) => api.call(`/convert?ip=${i % 7 === 0 ? "bad-ip" : `9.${i >> 8}.${i & 255}.1`}`, { key })),
    );
    const accepted = answers.filter((a) => a.status === 200 || a.status === 400);
    const refused = answers.filter((a) => a.status === 429);
    expect(accepted).toHaveLength(1000);
    expect(refused).toHaveLength(200);
    for (const answer of refused) expectEnvelope(answer, 429, MESSAGES.quotaExceeded);
    const usage = await api.server.cli("usage", "--project", id);
    expect(usage).toMatchObject({ plan: "free", used: 1000, limit: 1000 });
    const list = await api.call("/conversions/list?limit=1", { key });
    expect(list.body.data.totalCount).toBe(1000);
  }, SLOW);

  it("carries X-RateLimit-* headers; a request needing more than is left is refused whole", async () => {
    const { id, secretKey: key } = await api.project("free", "bulk");
    const first = await api.call("/convert", { key, json: { ips: [...Array(599).fill("8.8.8.8"), "invalid"] } });
    expectEnvelope(first, 200);
    expect(first.headers.get("x-ratelimit-limit")).toBe("1000");
    expect(first.headers.get("x-ratelimit-remaining")).toBe("400");
    expect(Number(first.headers.get("x-ratelimit-reset"))).toBe(nextMonthEpoch());

    const tooMany = await api.call("/convert", { key, json: { ips: Array(401).fill("1.1.1.1") } });
    expectEnvelope(tooMany, 429, MESSAGES.quotaExceeded);
    expect(tooMany.body.data).toBeNull();
    expect(Number(tooMany.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(tooMany.headers.get("x-ratelimit-remaining")).toBe("400");
    expect((await api.server.cli("usage", "--project", id)).used).toBe(600);
    expect((await api.call("/conversions/list?limit=1", { key })).body.data.totalCount).toBe(600);

    const rest = await api.call("/convert", { key, json: { ips: Array(400).fill("1.1.1.1") } });
    expectEnvelope(rest, 200);
    expect(rest.headers.get("x-ratelimit-remaining")).toBe("0");
    expectEnvelope(await api.call("/convert?ip=1.1.1.1", { key }), 429, MESSAGES.quotaExceeded);
    expectEnvelope(await api.call("/convert?ip=nonsense", { key }), 429, MESSAGES.quotaExceeded);
  }, SLOW);

  it("a plan change takes effect without a restart; scale answers carry no quota headers", async () => {
    const { id, secretKey: key } = await api.project("free", "upgrade");
    expectEnvelope(await api.call("/convert", { key, json: { ips: Array(1000).fill("8.8.8.8") } }), 200);
    expectEnvelope(await api.call("/convert?ip=8.8.8.8", { key }), 429);

    const changed = await api.server.cli("project", "plan", id, "starter");
    expect(changed.project).toMatchObject({ id, plan: "starter" });
    const until = Date.now() + 1000;
    let answer = await api.call("/convert?ip=8.8.8.8", { key });
    while (answer.status === 429 && Date.now() < until) answer = await api.call("/convert?ip=8.8.8.8", { key });
    expectEnvelope(answer, 200);
    expect(answer.headers.get("x-ratelimit-limit")).toBe("10000");
    expect(answer.headers.get("x-ratelimit-remaining")).toBe("8999");

    await api.server.cli("project", "plan", id, "scale");
    await new Promise((r) => setTimeout(r, 1000));
    const unlimited = await api.call("/convert?ip=8.8.8.8", { key });
    expectEnvelope(unlimited, 200);
    expect(unlimited.headers.get("x-ratelimit-limit")).toBeNull();
    expect((await api.server.cli("usage", "--project", id))).toMatchObject({ plan: "scale", used: 1002, limit: null });
  }, SLOW);
});
