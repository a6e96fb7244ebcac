import { describe, expect, it } from "vitest";
import { clientAddress } from "./client-ip.js";

describe("clientAddress", () => {
  it("is the socket's address without trusted proxies, whatever X-Forwarded-For says", () => {
    expect(clientAddress("203.0.113.9", "1.1.1.1", 0)).toBe("203.0.113.9");
  });

  it("takes the address N proxies back", () => {
    expect(clientAddress("10.0.0.1", "1.1.1.1, 2.2.2.2, 3.3.3.3", 1)).toBe("3.3.3.3");
    expect(clientAddress("10.0.0.1", "1.1.1.1, 2.2.2.2, 3.3.3.3", 2)).toBe("2.2.2.2");
    expect(clientAddress("10.0.0.1", "1.1.1.1", 5)).toBe("1.1.1.1");
    expect(clientAddress("10.0.0.1", undefined, 1)).toBe("10.0.0.1");
  });

  it("unmaps IPv4-mapped socket addresses", () => {
    expect(clientAddress("::ffff:127.0.0.1", undefined, 0)).toBe("127.0.0.1");
    expect(clientAddress("::1", undefined, 0)).toBe("::1");
  });
});
