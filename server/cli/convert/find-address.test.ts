import { describe, expect, it } from "vitest";
import { findAddress } from "./find-address.js";

describe("findAddress", () => {
  it("takes a line that is one address as it is", () => {
    expect(findAddress("8.8.8.8")).toBe("8.8.8.8");
    expect(findAddress("  2001:4860:4860::8888 \r")).toBe("2001:4860:4860::8888");
    expect(findAddress("::ffff:1.2.3.4")).toBe("::ffff:1.2.3.4");
  });

  it("finds the first address in a log line", () => {
    expect(findAddress('203.0.113.9 - - [23/Nov/2026:10:00:00 +0000] "GET / HTTP/1.1" 200 512 "-" "curl/8"')).toBe("203.0.113.9");
    expect(findAddress("2026-11-23T10:00:00.123Z client=[2001:db8::7]:443 status=200")).toBe("2001:db8::7");
    expect(findAddress("ts=12:34:56 from 198.51.100.4:51234 to 10.0.0.1")).toBe("198.51.100.4");
    expect(findAddress("Nov 23 10:00:00 sshd[99]: Failed password for root from 192.0.2.1 port 22")).toBe("192.0.2.1");
    expect(findAddress("addr 1.1.1.1.")).toBe("1.1.1.1");
  });

  it("null when the line has no address", () => {
    for (const line of ["", "hello world", "version 1.2.3", "12:34:56", "999.1.1.1", "deadbeef", "01.02.03.04"]) expect(findAddress(line), line).toBeNull();
  });
});
