/**
 * The updater against a local stand-in for the download sites (test/helpers/data-source-server.ts):
 * every way a download goes wrong leaves the file in place untouched, and a good one is swapped
 * in and served by a running engine without a restart.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createGeoEngine } from "../engine/engine.js";
import type { GeoEngine } from "../types.js";
import { updateData, type UpdateOptions } from "./updater.js";
import { loadUpdateSettings } from "./settings.js";
import { downloadedPath, lockPath } from "./paths.js";
import { readState, takeLock } from "./state.js";
import {
  file,
  fixture,
  gzipped,
  sha256Hex,
  slow,
  startSourceServer,
  tarGz,
  truncated,
  wrongAnswers,
  type SourceServer,
} from "../../../test/helpers/data-source-server.js";

const PROBES = "81.2.69.160=GB,89.160.20.112=SE,175.16.199.0=CN,1.128.0.0=AS1221,12.81.92.0=AS7018,89.160.20.112=AS29518";
/** the fixtures are built 2026-02-04: DB-IP's file for 2026-02 */
const FEBRUARY = new Date("2026-02-20T10:00:00Z");
const CITY_FEB = "/dbip-city-lite-2026-02.mmdb.gz";
const ASN_FEB = "/dbip-asn-lite-2026-02.mmdb.gz";
const quiet = { info() {}, warn() {}, error() {} };

describe("data updater", () => {
  let source: SourceServer;
  let dataDir: string;
  const lines: string[] = [];
  const log = { info: (l: string) => lines.push(l), warn: (l: string) => lines.push(l), error: (l: string) => lines.push(l) };

  const run = (env: NodeJS.ProcessEnv = {}, extra: Partial<UpdateOptions> = {}) =>
    updateData({
      dataDir,
      cityDb: null,
      asnDb: null,
      settings: loadUpdateSettings({ IPATLAS_UPDATE_PROBES: PROBES, ...env }),
      now: FEBRUARY,
      origins: { dbip: source.url, maxmind: source.url },
      limits: { timeoutMs: 5000, stallMs: 2000 },
      log,
      ...extra,
    });
  const serveGoodDbip = () => {
    source.routes.set(CITY_FEB, file(gzipped("GeoIP2-City-Test.mmdb")));
    source.routes.set(ASN_FEB, file(gzipped("GeoLite2-ASN-Test.mmdb")));
  };
  const cityFile = () => downloadedPath(dataDir, "city");

  beforeAll(async () => {
    source = await startSourceServer();
  });
  afterAll(async () => {
    await source.close();
  });
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), "ipatlas-update-"));
    source.routes.clear();
    source.requests.length = 0;
    lines.length = 0;
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  describe("DB-IP Lite", () => {
    it("downloads city and ASN, swaps them in, and a running engine serves them without a restart", async () => {
      const engine = await createGeoEngine({ dataDir, publicBaseUrl: () => "http://x", logger: quiet, reloadIntervalMs: 20 });
      try {
        expect(engine.databases().map((db) => db.kind)).toEqual(["bundled", "bundled", "bundled"]);
        serveGoodDbip();
        const report = await run();
        expect(report.status).toBe("done");
        expect(report.databases).toEqual([
          expect.objectContaining({ name: "city", status: "updated", provider: "DB-IP", url: `${source.url}${CITY_FEB}`, buildDate: "2026-02-04T22:49:29.000Z", error: null }),
          expect.objectContaining({ name: "asn", status: "updated", provider: "DB-IP", url: `${source.url}${ASN_FEB}`, buildDate: "2026-02-04T22:49:29.000Z" }),
        ]);
        expect(readFileSync(cityFile()).equals(fixture("GeoIP2-City-Test.mmdb"))).toBe(true);
        expect(lines.at(-1)).toMatch(/^geo: data update \(dbip\): city updated from .* \(built 2026-02-04T22:49:29.000Z, 0.0 MB\); asn updated/);

        await until(() => engine.databases()[0]!.source === cityFile());
        await until(() => engine.databases().some((db) => db.name === "asn" && db.source === downloadedPath(dataDir, "asn")));
        const answer = engine.convert("214.0.0.0", FEBRUARY); // only the GeoIP2 test file knows it
        expect(answer.data.continent?.country?.code).toBe("SG");
        expect(engine.convert("1.128.0.0", FEBRUARY).data.asn).toEqual({ number: 1221, name: "Telstra Pty Ltd" });
        expect(engine.databases().map((db) => [db.name, db.kind])).toEqual([
          ["city", "maxmind"],
          ["registered-country", "maxmind"],
          ["asn", "maxmind"],
        ]);
      } finally {
        await engine.close();
      }
    });

    it("leaves the bundled data answering when the downloaded file is refused at start", async () => {
      const { mkdirSync, writeFileSync } = await import("node:fs");
      mkdirSync(join(dataDir, "geo", "downloaded"), { recursive: true });
      writeFileSync(cityFile(), "not a database");
      const errors: string[] = [];
      const engine = await createGeoEngine({ dataDir, publicBaseUrl: () => "http://x", logger: { ...quiet, error: (l) => errors.push(l) } });
      try {
        expect(errors).toEqual([expect.stringMatching(/refused city database .*; the bundled data answers until a good file is in place$/)]);
        expect(engine.databases()[0]!.kind).toBe("bundled");
        expect(engine.convert("8.8.8.8", FEBRUARY).data.continent?.country?.code).toBe("US");
      } finally {
        await engine.close();
      }
    });

    it("asks again with If-None-Match and keeps the file on 304", async () => {
      serveGoodDbip();
      await run();
      const state = readState(dataDir);
      expect(state.databases.city).toMatchObject({ url: `${source.url}${CITY_FEB}`, etag: expect.stringMatching(/^"/), lastError: null });
      source.requests.length = 0;
      const again = await run();
      expect(again.databases.map((db) => db.status)).toEqual(["unchanged", "unchanged"]);
      expect(source.requests[0]!.headers["if-none-match"]).toBe(state.databases.city!.etag);
      expect(source.requests[0]!.headers["if-modified-since"]).toBe("Wed, 04 Feb 2026 22:49:29 GMT");
    });

    it("knows the file in place when another address serves it again, and takes a different one of the same build", async () => {
      serveGoodDbip();
      await run();
      const march = { now: new Date("2026-03-02T00:00:00Z") };
      const serveMarch = (city: string) => {
        source.routes.clear();
        source.routes.set("/dbip-city-lite-2026-03.mmdb.gz", file(gzipped(city)));
        source.routes.set("/dbip-asn-lite-2026-03.mmdb.gz", file(gzipped("GeoLite2-ASN-Test.mmdb")));
      };
      serveMarch("GeoIP2-City-Test.mmdb");
      const same = await run({}, march);
      expect(same.databases.map((db) => db.status)).toEqual(["unchanged", "unchanged"]);
      expect(readState(dataDir).databases.city!.url).toBe(`${source.url}/dbip-city-lite-2026-03.mmdb.gz`);
      // built the same second, other bytes
      serveMarch("GeoLite2-City-Test.mmdb");
      const other = await run({}, march);
      expect(other.databases[0]).toMatchObject({ status: "updated", buildDate: "2026-02-04T22:49:29.000Z" });
      expect(readFileSync(cityFile()).equals(fixture("GeoLite2-City-Test.mmdb"))).toBe(true);
    });

    it("falls back to the month before while this month's file is not out (404)", async () => {
      serveGoodDbip();
      const report = await run({}, { now: new Date("2026-03-02T00:00:00Z") });
      expect(report.databases.map((db) => db.status)).toEqual(["updated", "updated"]);
      expect(source.requests.map((r) => r.path).slice(0, 2)).toEqual(["/dbip-city-lite-2026-03.mmdb.gz", CITY_FEB]);
    });

    it("fails when neither month exists, and says which URLs it tried", async () => {
      const report = await run();
      expect(report.databases[0]).toMatchObject({ status: "failed", error: expect.stringMatching(/not found \(HTTP 404\): .*2026-02.*2026-01/) });
      expect(existsSync(cityFile())).toBe(false);
      expect(readState(dataDir).databases.city!.lastError).toMatch(/404/);
      expect(lines.at(-1)).toMatch(/city failed: not found/);
    });

    /** Installs the good files, then serves `route` for the city file of the next month: the good file must stay. */
    async function refused(route: Parameters<SourceServer["routes"]["set"]>[1], reason: RegExp, extra: Partial<UpdateOptions> = {}) {
      serveGoodDbip();
      await run();
      const before = readFileSync(cityFile());
      source.routes.clear();
      source.routes.set("/dbip-city-lite-2026-03.mmdb.gz", route);
      source.routes.set("/dbip-asn-lite-2026-03.mmdb.gz", file(gzipped("GeoLite2-ASN-Test.mmdb")));
      const report = await run({}, { now: new Date("2026-03-02T00:00:00Z"), ...extra });
      expect(report.databases[0]).toMatchObject({ name: "city", status: "failed", buildDate: "2026-02-04T22:49:29.000Z" });
      expect(report.databases[0]!.error).toMatch(reason);
      expect(readFileSync(cityFile()).equals(before)).toBe(true);
      expect(readState(dataDir).databases.city!.lastError).toMatch(reason);
      return report;
    }

    it("keeps the old file when the download is truncated", async () => {
      await refused(truncated(gzipped("GeoLite2-City-Test.mmdb")), /terminated|truncated|other side closed/i);
    });

    it("keeps the old file when the gzip is corrupt", async () => {
      const body = gzipped("GeoLite2-City-Test.mmdb");
      body[body.length >> 1] ^= 0xff;
      await refused(file(body), /corrupt gzip/);
    });

    it("keeps the old file when the database inside is corrupt", async () => {
      await refused(file(gzipped("GeoIP2-City-Test-Broken-Double-Format.mmdb")), /double of \d+ bytes/);
      await refused(file(gzipped("GeoIP2-City-Test-Invalid-Node-Count.mmdb")), /invalid node count/);
    });

    it("keeps the old file when the answer is not gzip at all", async () => {
      await refused(file(fixture("GeoLite2-City-Test.mmdb")), /not a gzip file/);
    });

    it("keeps the old file when the answer is a page (wrong content type)", async () => {
      await refused(file(gzipped("GeoLite2-City-Test.mmdb"), "text/html; charset=utf-8"), /answered text\/html, not a database file/);
    });

    it("keeps the old file when the source stalls", async () => {
      await refused(slow(gzipped("GeoLite2-City-Test.mmdb"), 3000), /download aborted: no data for 0.3s/, { limits: { stallMs: 300, timeoutMs: 5000 } });
    });

    it("keeps the old file when the download takes too long", async () => {
      await refused(slow(gzipped("GeoLite2-City-Test.mmdb"), 3000), /download aborted: took longer than 0.4s/, { limits: { stallMs: 5000, timeoutMs: 400 } });
    });

    it("keeps the old file when the download is over the size limit", async () => {
      await refused(file(gzipped("GeoLite2-City-Test.mmdb")), /over the limit of 1000/, { limits: { maxDownloadBytes: 1000 } });
    });

    it("refuses a file built in another month than the one it is named for", async () => {
      serveGoodDbip();
      const report = await run({}, { now: new Date("2026-06-10T00:00:00Z") });
      expect(report.databases[0]).toMatchObject({ status: "failed" }); // 2026-06 and 2026-05 are 404s here
      source.routes.set("/dbip-city-lite-2026-06.mmdb.gz", file(gzipped("GeoIP2-City-Test.mmdb")));
      const wrongMonth = await run({}, { now: new Date("2026-06-10T00:00:00Z") });
      expect(wrongMonth.databases[0]!.error).toBe("refused: the file for 2026-06 was built 2026-02-04");
      expect(existsSync(cityFile())).toBe(false);
    });

    it("refuses a file that passes the checks but answers wrong", async () => {
      await refused(file(gzipped(wrongAnswers("GeoLite2-City-Test.mmdb", ["GB", "SE", "CN"]))), /lookup test failed \(0 of 3 right\): 81\.2\.69\.160 gave XX, expected GB/);
    });

    it("refuses an ASN file where a city file belongs", async () => {
      await refused(file(gzipped("GeoLite2-ASN-Test.mmdb")), /not a city database/);
    });

    it("reads from a mirror with the origin's file names", async () => {
      source.routes.set(`/mirror${CITY_FEB}`, file(gzipped("GeoLite2-City-Test.mmdb")));
      source.routes.set(`/mirror${ASN_FEB}`, file(gzipped("GeoLite2-ASN-Test.mmdb")));
      const report = await run({ IPATLAS_UPDATE_MIRROR: `${source.url}/mirror/` });
      expect(report.databases.map((db) => [db.status, db.url])).toEqual([
        ["updated", `${source.url}/mirror${CITY_FEB}`],
        ["updated", `${source.url}/mirror${ASN_FEB}`],
      ]);
    });

    it("does nothing while another updater holds the data dir's lock", async () => {
      serveGoodDbip();
      const release = takeLock(dataDir)!;
      try {
        expect(await run()).toEqual({ status: "busy", source: "dbip", databases: [] });
        expect(source.requests).toHaveLength(0);
      } finally {
        release();
      }
      expect(existsSync(lockPath(dataDir))).toBe(false);
      expect((await run()).status).toBe("done");
      expect(existsSync(lockPath(dataDir))).toBe(false);
    });

    it("takes over a lock whose process is gone", async () => {
      serveGoodDbip();
      const { writeFileSync, mkdirSync } = await import("node:fs");
      mkdirSync(join(dataDir, "geo"), { recursive: true });
      writeFileSync(lockPath(dataDir), "999999999\n");
      expect((await run()).status).toBe("done");
    });
  });

  describe("MaxMind", () => {
    const MAXMIND = { IPATLAS_MAXMIND_ACCOUNT_ID: "12345", IPATLAS_MAXMIND_LICENSE_KEY: "secret-key" };
    const path = (edition: string, suffix = "tar.gz") => `/geoip/databases/${edition}/download?suffix=${suffix}`;
    /** Answers only with the right basic auth, like MaxMind's endpoint. */
    const authorized = (route: ReturnType<typeof file>): ReturnType<typeof file> => (req, res) => {
      if (req.headers.authorization !== `Basic ${Buffer.from("12345:secret-key").toString("base64")}`) {
        res.writeHead(401, { "content-type": "application/json" }).end('{"error":"Invalid license key"}');
        return;
      }
      route(req, res);
    };
    const serve = (edition: string, body: Buffer, sha = sha256Hex(body)) => {
      source.routes.set(path(edition), authorized(file(body)));
      source.routes.set(path(edition, "tar.gz.sha256"), authorized(file(Buffer.from(`${sha}  ${edition}_20260204.tar.gz\n`), "application/octet-stream")));
    };

    it("downloads the tar.gz editions with basic auth and checks the published SHA-256", async () => {
      serve("GeoLite2-City", tarGz("GeoLite2-City-Test.mmdb", "GeoLite2-City"));
      serve("GeoLite2-ASN", tarGz("GeoLite2-ASN-Test.mmdb", "GeoLite2-ASN"));
      const report = await run(MAXMIND);
      expect(report.source).toBe("maxmind");
      expect(report.databases.map((db) => [db.name, db.status, db.provider])).toEqual([
        ["city", "updated", "MaxMind"],
        ["asn", "updated", "MaxMind"],
      ]);
      expect(readFileSync(cityFile()).equals(fixture("GeoLite2-City-Test.mmdb"))).toBe(true);
    });

    it("refuses an archive whose SHA-256 is not the published one", async () => {
      serve("GeoLite2-City", tarGz("GeoLite2-City-Test.mmdb", "GeoLite2-City"), "0".repeat(64));
      serve("GeoLite2-ASN", tarGz("GeoLite2-ASN-Test.mmdb", "GeoLite2-ASN"));
      const report = await run(MAXMIND);
      expect(report.databases[0]!.error).toMatch(/^refused: SHA-256 [0-9a-f]{64} is not the published 0{64}$/);
      expect(report.databases[1]!.status).toBe("updated");
      expect(existsSync(cityFile())).toBe(false);
    });

    it("says when the licence key is refused", async () => {
      serve("GeoLite2-City", tarGz("GeoLite2-City-Test.mmdb", "GeoLite2-City"));
      const report = await run({ ...MAXMIND, IPATLAS_MAXMIND_LICENSE_KEY: "wrong" });
      expect(report.databases[0]!.error).toMatch(/HTTP 401: access refused \(check the account id and licence key\)/);
    });

    it("refuses a corrupt tar.gz and one without a database", async () => {
      const body = tarGz("GeoLite2-City-Test.mmdb", "GeoLite2-City");
      serve("GeoLite2-City", body.subarray(0, body.length - 200));
      expect((await run(MAXMIND)).databases[0]!.error).toMatch(/corrupt tar\.gz|unexpected end/i);
      const { gzipSync } = await import("node:zlib");
      serve("GeoLite2-City", gzipSync(Buffer.alloc(1024, 7)));
      expect((await run(MAXMIND)).databases[0]!.error).toMatch(/^corrupt tar\.gz: TAR_/);
      serve("GeoLite2-City", tarGz("GeoLite2-City-Test.mmdb", "GeoLite2-City", "GeoLite2-City.mmdb.old"));
      expect((await run(MAXMIND)).databases[0]!.error).toBe("no .mmdb file in the archive");
    });

    it("updates a configured IPATLAS_CITY_DB file in place", async () => {
      serve("GeoLite2-City", tarGz("GeoLite2-City-Test.mmdb", "GeoLite2-City"));
      const configured = join(dataDir, "my-city.mmdb");
      const report = await run(MAXMIND, { cityDb: configured });
      expect(report.databases[0]).toMatchObject({ status: "updated", file: configured });
      expect(readFileSync(configured).equals(fixture("GeoLite2-City-Test.mmdb"))).toBe(true);
    });
  });
});

async function until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
