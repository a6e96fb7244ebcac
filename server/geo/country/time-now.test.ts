import { describe, expect, it } from "vitest";
import { localTimeIso } from "./time-now.js";

describe("localTimeIso", () => {
  it.each([
    ["Europe/London", "2026-11-22T03:04:05.678Z", "2026-11-22T03:04:05+00:00"],
    ["Europe/London", "2026-07-01T12:00:00Z", "2026-07-01T13:00:00+01:00"],
    ["Europe/Berlin", "2026-11-22T03:04:05Z", "2026-11-22T04:04:05+01:00"],
    ["America/New_York", "2026-11-22T03:04:05Z", "2026-11-21T22:04:05-05:00"],
    ["Asia/Kolkata", "2026-11-22T03:04:05Z", "2026-11-22T08:34:05+05:30"],
    ["Asia/Kathmandu", "2026-11-22T00:00:00Z", "2026-11-22T05:45:00+05:45"],
    ["Pacific/Chatham", "2026-11-22T00:00:00Z", "2026-11-22T13:45:00+13:45"],
    ["UTC", "2026-11-22T03:04:05.999Z", "2026-11-22T03:04:05+00:00"],
  ])("%s at %s is %s", (zone, instant, expected) => {
    expect(localTimeIso(zone, new Date(instant))).toBe(expected);
  });

  it("follows a daylight-saving change within the same zone", () => {
    // Europe/Berlin moves to summer time at 2026-03-29T01:00Z.
    expect(localTimeIso("Europe/Berlin", new Date("2026-03-29T00:59:59Z"))).toBe("2026-03-29T01:59:59+01:00");
    expect(localTimeIso("Europe/Berlin", new Date("2026-03-29T01:00:00Z"))).toBe("2026-03-29T03:00:00+02:00");
  });

  it("names the same instant as its input, to the second", () => {
    const now = new Date("2026-11-22T03:04:05.678Z");
    for (const zone of ["Australia/Sydney", "America/Los_Angeles", "Asia/Tokyo", "Africa/Cairo"]) {
      expect(Date.parse(localTimeIso(zone, now)!)).toBe(Date.parse("2026-11-22T03:04:05Z"));
    }
  });

  it("gives null for a zone the runtime does not know", () => {
    expect(localTimeIso("Mars/Olympus_Mons", new Date())).toBeNull();
  });
});
