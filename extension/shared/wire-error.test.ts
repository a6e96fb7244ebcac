import { describe, expect, it } from "vitest";
import { ApiError } from "../../lib/client/index.js";
import { MESSAGES } from "../../lib/schemas/messages.js";
import { describeError, NOT_CONFIGURED, toWireError } from "./wire-error.js";

describe("describeError", () => {
  const now = Date.UTC(2026, 10, 22, 4, 0);
  const wire = (init: ConstructorParameters<typeof ApiError>[0]) => toWireError(new ApiError(init));

  it("says which of the three 401s it is", () => {
    expect(describeError(wire({ kind: "origin-not-allowed", status: 401, message: MESSAGES.originNotAllowed }))).toMatch(/origin is not registered/);
    expect(describeError(wire({ kind: "invalid-key", status: 401, message: MESSAGES.invalidKey }))).toMatch(/does not know this API key/);
    expect(describeError(wire({ kind: "missing-key", status: 401, message: MESSAGES.missingKey }))).toMatch(/No API key/);
  });

  it("tells when lookups resume after a 429", () => {
    expect(describeError(wire({ kind: "rate-limited", status: 429, message: MESSAGES.tooManyRequests, retryAt: now + 30_000 }), now)).toMatch(/in about 1 minute\./);
    expect(describeError(wire({ kind: "quota-exceeded", status: 429, message: MESSAGES.quotaExceeded, retryAt: Date.UTC(2026, 11, 1) }), now)).toMatch(/quota is used up\. Lookups resume at 2026-12-01 00:00 UTC\./);
  });

  it("covers an unreachable server and missing settings", () => {
    expect(describeError(wire({ kind: "unreachable", status: 0, message: "x" }))).toMatch(/could not be reached/);
    expect(describeError(NOT_CONFIGURED)).toMatch(/Server URL and API key/);
  });
});
