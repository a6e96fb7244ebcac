import { describe, expect, it } from "vitest";
import { bareIpObject } from "../../lib/schemas/ip-object.js";
import { MESSAGES } from "../../lib/schemas/messages.js";
import { isEnvelope, isIpObject, toResult } from "./result.js";

const meta = { reqId: "r1", resTime: 1.5 };

describe("toResult", () => {
  it("takes the Ip object out of a successful envelope", () => {
    const data = bareIpObject("8.8.8.8", "ipv4");
    expect(toResult(200, { success: true, message: MESSAGES.success, code: 200, data, _req: meta })).toEqual({ ok: true, data });
  });

  it("passes an error envelope through", () => {
    const body = { success: false, message: MESSAGES.originNotAllowed, code: 401, data: null, _req: meta };
    expect(toResult(401, body)).toEqual({ ok: false, error: body });
  });

  it("turns a success without an Ip object (failed lookup) into an error", () => {
    const result = toResult(200, { success: true, message: MESSAGES.conversionFailed, code: 200, data: null, _req: meta });
    expect(result).toMatchObject({ ok: false, error: { success: false, message: MESSAGES.conversionFailed, code: 200 } });
  });

  it("reports answers that are not envelopes with their status", () => {
    expect(toResult(502, "<html>Bad gateway</html>")).toMatchObject({ ok: false, error: { code: 0, message: "Unexpected answer (HTTP 502)" } });
  });
});

describe("guards", () => {
  it("check the shape the widget reads", () => {
    expect(isEnvelope({ success: true, message: "", code: 200, data: null, _req: meta })).toBe(true);
    expect(isEnvelope({ success: true, message: "", code: "200", _req: meta })).toBe(false);
    expect(isIpObject(bareIpObject("::1", "ipv6"))).toBe(true);
    expect(isIpObject({ ip: 5, continent: null, registered_country: null, asn: null })).toBe(false);
    expect(isIpObject({ ip: "1.1.1.1", continent: [], registered_country: null, asn: null })).toBe(false);
  });
});
