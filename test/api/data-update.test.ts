/**
 * `ipatlas data update` / `data status` and the `serve` schedule, end to end over loopback: the
 * sources are a local stand-in (test/helpers/data-source-server.ts) reached through
 * IPATLAS_UPDATE_MIRROR, MaxMind's file names, so nothing depends on the calendar.
 */
import { execFile } from "node:child_process";
import { request } from "node:http";
import { promisify } from "node:util";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, makeDataDir, ROOT, startServer, type TestServer } from "../helpers/server.js";
import { file, startSourceServer, tarGz, type SourceServer } from "../helpers/data-source-server.js";
import { healthResponseSchema } from "../../lib/schemas/api.js";

const execFileAsync = promisify(execFile);
const PROBES = "81.2.69.160=GB,89.160.20.112=SE,175.16.199.0=CN,1.128.0.0=AS1221,12.81.92.0=AS7018";

async function cli(dataDir: string, env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ code: number; json: any; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [BIN, ...args, "--json", "--data-dir", dataDir], { env, cwd: ROOT });
    return { code: 0, json: JSON.parse(stdout), stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, json: failed.stdout ? JSON.parse(failed.stdout) : null, stderr: failed.stderr };
  }
}

/** GET /healthz on a fresh connection each time, so a cluster's workers take turns answering. */
function health(url: string): Promise<any> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/healthz`, { agent: false }, (res) => {
      let text = "";
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () => resolve(JSON.parse(text).data));
    });
    req.on("error", reject);
    req.end();
  });
}

// Each test runs the CLI (which loads the geo data) several times: slow on a busy machine.
describe("data update and status", { timeout: 120_000 }, () => {
  let source: SourceServer;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    source = await startSourceServer();
    source.routes.set("/mirror/GeoLite2-City.tar.gz", file(tarGz("GeoIP2-City-Test.mmdb", "GeoLite2-City")));
    source.routes.set("/mirror/GeoLite2-ASN.tar.gz", file(tarGz("GeoLite2-ASN-Test.mmdb", "GeoLite2-ASN")));
    env = { ...process.env, IPATLAS_UPDATE_SOURCE: "maxmind", IPATLAS_UPDATE_MIRROR: `${source.url}/mirror`, IPATLAS_UPDATE_PROBES: PROBES, IPATLAS_LOG_LEVEL: "warn" };
  });
  afterAll(() => source.close());

  it("updates from a mirror, reports it in --json, and data status shows the new files", async () => {
    const dataDir = makeDataDir();
    const before = await cli(dataDir, env, "data", "status");
    expect(before.code).toBe(0);
    expect(before.json.databases.map((db: any) => db.kind)).toEqual(["bundled", "bundled", "bundled"]);
    expect(before.json.update).toEqual({ source: "maxmind", everySeconds: null, lastCheckAt: null, lastCheckOk: null });

    const update = await cli(dataDir, env, "data", "update");
    expect(update.code).toBe(0);
    expect(update.json).toMatchObject({
      status: "done",
      source: "maxmind",
      databases: [
        { name: "city", status: "updated", provider: "MaxMind", url: `${source.url}/mirror/GeoLite2-City.tar.gz`, buildDate: "2026-02-04T22:49:29.000Z", error: null },
        { name: "asn", status: "updated", provider: "MaxMind", url: `${source.url}/mirror/GeoLite2-ASN.tar.gz`, error: null },
      ],
    });

    const after = await cli(dataDir, env, "data", "status");
    const status = healthResponseSchema.omit({ status: true }).parse(after.json);
    expect(after.json.checks.city).toMatchObject({ url: `${source.url}/mirror/GeoLite2-City.tar.gz`, lastError: null, etag: expect.any(String) });
    expect(status.databases.map((db) => [db.name, db.kind, db.buildDate])).toEqual([
      ["city", "maxmind", "2026-02-04T22:49:29.000Z"],
      ["registered-country", "maxmind", "2026-02-04T22:49:29.000Z"],
      ["asn", "maxmind", "2026-02-04T22:49:29.000Z"],
    ]);
    expect(status.update.lastCheckOk).toBe(true);

    const again = await cli(dataDir, env, "data", "update");
    expect(again.json.databases.map((db: any) => db.status)).toEqual(["unchanged", "unchanged"]);
  });

  it("exits 1 and keeps the data when a database fails, with the reason in --json", async () => {
    const dataDir = makeDataDir();
    const failed = await cli(dataDir, { ...env, IPATLAS_MAXMIND_CITY_EDITION: "GeoIP2-City" }, "data", "update");
    expect(failed.code).toBe(1);
    expect(failed.json.databases[0]).toMatchObject({ name: "city", status: "failed", error: `not found (HTTP 404): ${source.url}/mirror/GeoIP2-City.tar.gz` });
    expect(failed.json.databases[1]).toMatchObject({ name: "asn", status: "updated" });
    const status = await cli(dataDir, env, "data", "status");
    expect(status.json.databases[0]).toMatchObject({ name: "city", kind: "bundled" });
    expect(status.json.update.lastCheckOk).toBe(false);
    expect(status.json.checks.city.lastError).toMatch(/^not found \(HTTP 404\)/);
  });

  it("refuses bad settings with exit code 2", async () => {
    const dataDir = makeDataDir();
    const bad = await cli(dataDir, env, "data", "update", "--source", "geonames");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^ipatlas: --source must be dbip or maxmind, got "geonames"/);
    const noKey = await cli(dataDir, { ...env, IPATLAS_UPDATE_MIRROR: "" }, "data", "update");
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toMatch(/IPATLAS_MAXMIND_ACCOUNT_ID/);
  });

  describe("serve --update-every", () => {
    let server: TestServer;
    afterAll(() => server?.stop());

    it("updates on schedule, and every worker serves the new data without a restart", async () => {
      server = await startServer({ env, args: ["--workers", "2", "--update-every", "1s"] });
      const first = healthResponseSchema.parse(await health(server.url));
      expect(first.update.everySeconds).toBe(1);
      const deadline = Date.now() + 20_000;
      let answers: any[] = [];
      while (Date.now() < deadline) {
        answers = await Promise.all([1, 2, 3, 4, 5, 6].map(() => health(server.url)));
        if (answers.every((a) => a.databases[0].kind === "maxmind")) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(answers.map((a) => a.databases[0].source)).toEqual(Array(6).fill(join(server.dataDir, "geo", "downloaded", "city.mmdb")));
      expect(answers[0].stale).toBe(answers[0].databases.some((db: any) => db.stale));
      // the schedule, not this test, fetched it
      expect(source.requests.some((r) => r.path === "/mirror/GeoLite2-City.tar.gz")).toBe(true);
      // the credit follows the data: MaxMind's files now answer city and ASN
      const { secretKey } = await server.cli("project", "create", "--name", "credit", "--plan", "free");
      let credit: string | null = null;
      while (Date.now() < deadline + 10_000 && credit !== "MaxMind") {
        const res = await fetch(`${server.url}/convert?ip=81.2.69.160`, { headers: { "x-api-key": secretKey } });
        credit = res.headers.get("x-data-sources");
        await res.arrayBuffer();
        if (credit !== "MaxMind") await new Promise((resolve) => setTimeout(resolve, 300));
      }
      expect(credit).toBe("MaxMind");
    });
  });
});
