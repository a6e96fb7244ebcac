import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sha256Hex, tarGz } from "../../../test/helpers/data-source-server.js";
import { sha256, untarMmdb } from "./unpack.js";

// Large bodies are hashed and unpacked a piece at a time, giving requests a turn in between;
// random bytes do not compress, so these downloads span several pieces.
describe("unpacking a download in pieces", () => {
  const mmdb = randomBytes(1_500_000);
  const body = tarGz(mmdb, "GeoLite2-City");

  it("takes the .mmdb out of a tar.gz fed to the parser in several pieces", async () => {
    expect(body.length).toBeGreaterThan(1_000_000);
    expect((await untarMmdb(body, 10_000_000)).equals(mmdb)).toBe(true);
  });

  it("refuses a tar.gz cut off after its first pieces", async () => {
    await expect(untarMmdb(body.subarray(0, 700_000), 10_000_000)).rejects.toThrow(/corrupt tar\.gz|no \.mmdb file/);
  });

  it("hashes a body of many pieces as one", async () => {
    const large = randomBytes(3_000_000);
    expect(await sha256(large)).toBe(sha256Hex(large));
  });
});
