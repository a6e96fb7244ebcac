/**
 * With IPATLAS_TRUST_PROXY=1 the caller's address comes from X-Forwarded-For. Every spelling of
 * one address is one caller, an IPv6 /64 is one caller, and a value that is no address is
 * refused instead of stored as a conversion of "the caller's address".
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MESSAGES } from "../../lib/schemas/messages.js";
import { expectEnvelope, startApi, type ApiHarness } from "../helpers/api.js";

const PER_MINUTE = 5;
const ORIGIN = "https://app.example.com";
let api: ApiHarness;
let secretKey: string;
let publicKey: string;

beforeAll(async () => {
  api = await startApi("sqlite", { IPATLAS_TRUST_PROXY: "1", IPATLAS_PUBLIC_RATE_LIMIT: String(PER_MINUTE) });
  const project = await api.project("scale");
  secretKey = project.secretKey;
  publicKey = (await api.server.cli("website", "add", "--project", project.id, "--origin", "*.example.com")).publicKey;
});
afterAll(() => api?.stop());

const asPublic = (forwardedFor: string) =>
  api.call("/convert?ip=8.8.8.8", { key: publicKey, origin: ORIGIN, headers: { "x-forwarded-for": `198.51.100.1, ${forwardedFor}` } });

async function statuses(hops: string[]): Promise<number[]> {
  const out: number[] = [];
  for (const hop of hops) out.push((await asPublic(hop)).status);
  return out;
}

describe("forwarded addresses", () => {
  it("every spelling of one IPv6 address shares one rate-limit bucket", async () => {
    const spellings = ["2001:DB8:1:2::99", "2001:0db8:1:2::99", "2001:db8:1:2:0:0:0:99", "[2001:db8:1:2::99]", "[2001:db8:1:2::99]:443", "2001:db8:1:2::99"];
    expect(await statuses(spellings)).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it("every spelling of one IPv4 address shares one bucket; leading zeros are refused", async () => {
    const spellings = ["10.7.7.7", "10.7.7.7:1234", "::ffff:10.7.7.7", "[::ffff:10.7.7.7]:80", "::FFFF:10.7.7.7", "10.7.7.7"];
    expect(await statuses(spellings)).toEqual([200, 200, 200, 200, 200, 429]);
    expectEnvelope(await asPublic("010.7.7.7"), 400, MESSAGES.invalidForwardedFor);
  });

  it("rotating addresses inside one /64 does not escape the limit; another /64 is another caller", async () => {
    const rotation = Array.from({ length: 8 }, (_, i) => `2001:db8:9:9:${(i + 1).toString(16)}::${i + 7}`);
    expect(await statuses(rotation)).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    expect(await statuses(["2001:db8:9:a::1"])).toEqual([200]);
  });

  it("a forwarded value that is not an address is a 400 and stores nothing; an overlong header too", async () => {
    const before = (await api.call("/conversions/list?limit=1", { key: secretKey })).body.data.totalCount;
    for (const value of ["garbage", "unknown", "1.2.3.4/24", "fe80::1%eth0", "[10.7.7.7]", "10.7.7.7:99999"]) {
      expectEnvelope(await api.call("/convert", { key: secretKey, headers: { "x-forwarded-for": value } }), 400, MESSAGES.invalidForwardedFor);
    }
    const long = `${"203.0.113.9, ".repeat(700)}203.0.113.10`;
    expectEnvelope(await api.call("/convert", { key: secretKey, headers: { "x-forwarded-for": long } }), 400, MESSAGES.invalidForwardedFor);
    const after = (await api.call("/conversions/list?limit=1", { key: secretKey })).body.data.totalCount;
    expect(after).toBe(before);
  });

  it("the caller's own address is converted in canonical form", async () => {
    const own = await api.call("/convert", { key: secretKey, headers: { "x-forwarded-for": "[2001:DB8:0:0::1]:443" } });
    expectEnvelope(own, 200);
    expect(own.body.data.ip).toBe("2001:db8::1");
    const mapped = await api.call("/convert", { key: secretKey, headers: { "x-forwarded-for": "::ffff:81.2.69.160" } });
    expect(mapped.body.data.ip).toBe("81.2.69.160");
  });
});
