import { describe, expect, it } from "vitest";
import { addressLabel } from "./address-label.js";

describe("addressLabel", () => {
  it("names the range of addresses that cannot have a location", () => {
    expect(addressLabel("10.0.0.1")).toBe("private network");
    expect(addressLabel("192.168.1.20")).toBe("private network");
    expect(addressLabel("fd00::1")).toBe("private network");
    expect(addressLabel("127.0.0.1")).toBe("loopback");
    expect(addressLabel("169.254.0.1")).toBe("link-local");
    expect(addressLabel("100.64.1.1")).toBe("carrier-grade NAT");
    expect(addressLabel("240.0.0.1")).toBe("reserved");
  });

  it("says nothing for public addresses and for what is not an address", () => {
    expect(addressLabel("8.8.8.8")).toBeNull();
    expect(addressLabel("2a00:1450:4001:82f::200e")).toBeNull();
    expect(addressLabel("not an ip")).toBeNull();
    expect(addressLabel(null)).toBeNull();
  });
});
