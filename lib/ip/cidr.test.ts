import { describe, expect, it } from "vitest";
import { parseCidr } from "./cidr.js";

describe("parseCidr", () => {
  it("turns an IPv4 CIDR into its first and last address", () => {
    const range = parseCidr("10.0.0.0/8")!;
    expect(range.version).toBe(4);
    expect(range.prefixLength).toBe(8);
    expect([...range.first]).toEqual([10, 0, 0, 0]);
    expect([...range.last]).toEqual([10, 255, 255, 255]);
  });

  it("masks host bits and handles a prefix inside a byte", () => {
    const range = parseCidr(" 192.168.37.200/20 ")!;
    expect([...range.first]).toEqual([192, 168, 32, 0]);
    expect([...range.last]).toEqual([192, 168, 47, 255]);
  });

  it("covers one address at /32 and everything at /0", () => {
    expect([...parseCidr("8.8.8.8/32")!.last]).toEqual([8, 8, 8, 8]);
    const all = parseCidr("0.0.0.0/0")!;
    expect([...all.first]).toEqual([0, 0, 0, 0]);
    expect([...all.last]).toEqual([255, 255, 255, 255]);
  });

  it("turns an IPv6 CIDR into 16-byte bounds", () => {
    const range = parseCidr("2001:db8::/32")!;
    expect(range.version).toBe(6);
    expect(range.first).toHaveLength(16);
    expect([...range.first.slice(0, 5)]).toEqual([0x20, 0x01, 0x0d, 0xb8, 0]);
    expect([...range.last.slice(0, 5)]).toEqual([0x20, 0x01, 0x0d, 0xb8, 0xff]);
    expect(range.last[15]).toBe(0xff);
  });

  it.each(["10.0.0.0", "10.0.0.0/33", "2001:db8::/129", "10.0.0.0/08", "010.0.0.0/8", "10.0.0.0/8/8", "10.0.0.0/", "/8", "fe80::%eth0/64", "host/24", "10.0.0.0/-1"])(
    "rejects %j",
    (text) => {
      expect(parseCidr(text)).toBeNull();
    },
  );
});
