import { describe, expect, it } from "vitest";
import { Hono } from "hono";
import { errorEnvelopeSchema } from "../../lib/schemas/envelope.js";
import type { AppEnv } from "../app-types.js";
import { requestId } from "./request-id.js";
import { ApiError, reply, replyError } from "./envelope.js";

describe("envelope", () => {
  it("sets success from the status and code to it", async () => {
    const app = new Hono<AppEnv>()
      .use(requestId())
      .get("/ok", (c) => reply(c, 200, "Success", [1]))
      .get("/bad", (c) => replyError(c, new ApiError(400, "Invalid select field", { invalidFields: ["x"] }, { "x-extra": "1" })));
    const ok = await (await app.request("/ok")).json();
    expect(ok).toMatchObject({ success: true, code: 200, data: [1] });
    const res = await app.request("/bad");
    const bad = errorEnvelopeSchema.parse(await res.json());
    expect(res.status).toBe(400);
    expect(res.headers.get("x-extra")).toBe("1");
    expect(bad).toMatchObject({ success: false, code: 400, message: "Invalid select field", data: { invalidFields: ["x"] } });
  });
});
