import { describe, expect, it } from "vitest";
import ipaddr from "ipaddr.js";
import { foldAscii, ipToKey, IpKeyBlock } from "./ip-bytes.js";

/** what the key is by ipaddr's general parse, the reference */
function parsedKey(ip: string, type: "ipv4" | "ipv6"): number[] | null {
  try {
    const parsed = ipaddr.parse(ip);
    if ((type === "ipv4") !== (parsed.kind() === "ipv4")) return null;
    return [type === "ipv4" ? 4 : 6, ...parsed.toByteArray()];
  } catch {
    return null;
  }
}

describe("ipToKey", () => {
  it("gives ipaddr's bytes for every spelling, the engine's own and the odd ones", () => {
    const spellings = [
      "1.2.3.4", "0.0.0.0", "255.255.255.255", "81.2.69.160", "10.0.0.1", "256.1.1.1", "1.2.3", "1.2.3.4.5", "1..3.4", ".1.2.3",
      "1.2.3.", "01.2.3.4", "0.0.0.00", "1.2.3.0x10", "0x7f.0.0.1", "1.2.3.1234", "1.2.3.-4", " 1.2.3.4", "1.2.3.4 ", "",
      "::1", "2001:db8::1", "::ffff:1.2.3.4", "999.1.1.1", "1.2.3.4a",
    ];
    for (const ip of spellings) {
      for (const type of ["ipv4", "ipv6"] as const) {
        const key = ipToKey(ip, type);
        expect(key && [...key], `${ip} as ${type}`).toEqual(parsedKey(ip, type));
      }
    }
  });

  it("writes the same keys into a block, each a view of its bytes; a full block's next key is an array of its own", () => {
    const ips = ["81.2.69.160", "2001:db8::1", "not an ip", "::ffff:1.2.3.4", "255.255.255.255"];
    const block = new IpKeyBlock(ips.length);
    const keys = ips.map((ip) => ipToKey(ip, ip.includes(":") ? "ipv6" : "ipv4", block));
    expect(keys.map((key) => key && [...key])).toEqual(ips.map((ip) => parsedKey(ip, ip.includes(":") ? "ipv6" : "ipv4")));
    const [first, ...rest] = keys.filter((key) => key !== null);
    for (const key of rest) expect(key!.buffer).toBe(first!.buffer);
    const full = new IpKeyBlock(1);
    const [a, b] = [ipToKey("2001:db8::2", "ipv6", full)!, ipToKey("2001:db8::3", "ipv6", full)!];
    expect([[...a], [...b]]).toEqual([parsedKey("2001:db8::2", "ipv6"), parsedKey("2001:db8::3", "ipv6")]);
    expect(b.buffer).not.toBe(a.buffer);
  });

  it("agrees with ipaddr on random dotted addresses", () => {
    for (let i = 0; i < 2000; i++) {
      const ip = Array.from({ length: 4 }, () => Math.floor(Math.random() * 256)).join(".");
      expect([...ipToKey(ip, "ipv4")!]).toEqual(parsedKey(ip, "ipv4"));
    }
  });
});

describe("foldAscii", () => {
  it("lower-cases ASCII letters only, and gives text without any back as it is", () => {
    expect(foldAscii("2001:DB8::Ab")).toBe("2001:db8::ab");
    expect(foldAscii("ÄBC ß")).toBe("Äbc ß");
    expect(foldAscii("81.2.69.160")).toBe("81.2.69.160");
  });
});
