import { describe, expect, it } from "vitest";
import { addressBucket, clientAddress } from "./client-ip.js";

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

  it("reads every spelling of one forwarded address as that address", () => {
    const spellings = ["2001:DB8:1:2::99", "2001:0db8:1:2::99", "2001:db8:1:2:0:0:0:99", "[2001:db8:1:2::99]", "[2001:db8:1:2::99]:443"];
    for (const hop of spellings) expect(clientAddress("10.0.0.1", `9.9.9.9, ${hop}`, 1)).toBe("2001:db8:1:2::99");
    for (const hop of ["10.7.7.7", "10.7.7.7:1234", "::ffff:10.7.7.7", "[::ffff:10.7.7.7]:80", " 10.7.7.7 "]) {
      expect(clientAddress("10.0.0.1", hop, 1)).toBe("10.7.7.7");
    }
  });

  it("refuses a trusted entry that is not an address, and an overlong header", () => {
    for (const hop of ["garbage", "010.7.7.7", "10.7.7", "fe80::1%eth0", "10.7.7.7:99999", "[10.7.7.7]", "unknown", "1.2.3.4/24"]) {
      expect(clientAddress("10.0.0.1", `1.1.1.1, ${hop}`, 1)).toBeNull();
    }
    expect(clientAddress("10.0.0.1", `${"1.1.1.1, ".repeat(200)}2.2.2.2`, 1)).toBeNull();
    // an untrusted entry further left may be anything
    expect(clientAddress("10.0.0.1", "garbage, 2.2.2.2", 1)).toBe("2.2.2.2");
  });

  it("counts IPv6 callers by their /64", () => {
    expect(addressBucket("2001:db8:1:2::99")).toBe("2001:db8:1:2::/64");
    expect(addressBucket("2001:db8:1:2:ffff:1:2:3")).toBe("2001:db8:1:2::/64");
    expect(addressBucket("2001:db8:0:0:1::")).toBe("2001:db8:0:0::/64");
    expect(addressBucket("10.7.7.7")).toBe("10.7.7.7");
  });
});
