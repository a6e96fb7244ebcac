/**
 * `ipatlas lookup` and `ipatlas convert`: the local engine through main() and the real binary, and
 * `--server` through a real server's bulk API (chunks, stored and counted, a 429 waited out).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { createServer, request as httpRequest, type Server } from "node:http";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { promisify } from "node:util";
import { main } from "../../server/cli/main.js";
import { BIN, makeDataDir, startServer, type TestServer } from "../helpers/server.js";

const exec = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), "ipatlas-convert-"));
/** the first local lookup builds the bundled data's index in a fresh data dir; the machine is shared */
const SLOW = 180_000;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** main() in this process with its own streams; stdout is collected whole. */
async function run(argv: string[], options: { stdin?: string; env?: NodeJS.ProcessEnv } = {}) {
  const stdout = new PassThrough();
  const chunks: Buffer[] = [];
  stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
  const err: string[] = [];
  const code = await main([...argv, "--data-dir", dir], {
    stdout: (text) => stdout.write(text.endsWith("\n") ? text : text + "\n"),
    stderr: (text) => err.push(text),
    env: options.env ?? {},
    streams: { stdin: Readable.from([options.stdin ?? ""]), stdout, stderr: new PassThrough(), stderrIsTTY: false },
  });
  return { code, out: Buffer.concat(chunks).toString("utf8"), err: err.join("\n") };
}

const LINES = [
  "8.8.8.8",
  "",
  '203.0.113.9 - - [23/Nov/2026:10:00:00 +0000] "GET / HTTP/1.1" 200 512',
  "no address here",
  "2001:4860:4860::8888",
  "ts=2026-11-23T10:00:00Z client=[2606:4700:4700::1111]:443",
];
const EXPECTED_IPS = ["8.8.8.8", "203.0.113.9", "no address here", "2001:4860:4860::8888", "2606:4700:4700::1111"];

describe("ipatlas lookup / convert (local engine)", () => {
  it("lookup prints text, or one JSON document cut by --fields", async () => {
    const text = await run(["lookup", "8.8.8.8", "10.1.2.3"]);
    expect(text.code).toBe(0);
    expect(text.out).toMatch(/^8\.8\.8\.8 {2}US {2}.*United States {2}AS15169 Google LLC\n10\.1\.2\.3 {2}no location known\n$/);
    const json = await run(["lookup", "8.8.8.8", "1.1.1.1", "--json", "--fields", "ip,continent.country.code,asn.number"]);
    expect(JSON.parse(json.out)).toEqual([
      { ip: "8.8.8.8", continent: { country: { code: "US" } }, asn: { number: 15169 } },
      { ip: "1.1.1.1", continent: { country: { code: "AU" } }, asn: { number: 13335 } },
    ]);
  }, SLOW);

  it("lookup: exit 2 when an argument is not an address, after printing every answer", async () => {
    const result = await run(["lookup", "8.8.8.8", "nope", "--format", "ndjson", "--fields", "ip,type"]);
    expect(result.code).toBe(2);
    expect(result.out.trim().split("\n").map((line) => JSON.parse(line))).toEqual([{ ip: "8.8.8.8", type: "ipv4" }, { ip: "nope", type: null }]);
    expect((await run(["lookup"])).code).toBe(2);
  }, SLOW);

  it("convert: one NDJSON record per non-empty line, in order, the address of log lines found", async () => {
    const file = join(dir, "mixed.txt");
    writeFileSync(file, LINES.join("\n") + "\n");
    const result = await run(["convert", file]);
    expect(result.code).toBe(0);
    const records = result.out.trim().split("\n").map((line) => JSON.parse(line));
    expect(records.map((r) => r.ip)).toEqual(EXPECTED_IPS);
    expect(records[0].continent.country.code).toBe("US");
    expect(records[0].asn).toEqual({ number: 15169, name: "Google LLC" });
    expect(records[2]).toMatchObject({ type: null, continent: null });
    expect(Object.keys(records[0])).toEqual(["ip", "type", "is_eu", "continent", "registered_country", "asn", "completion_time"]);
  }, SLOW);

  it("convert: CSV with one column per select path, quoted where needed; JSON as one array; stdin as -", async () => {
    const csv = await run(["convert", "-", "--format", "csv", "--fields", "asn.name,ip,continent.country.city.name"], { stdin: LINES.join("\n") });
    expect(csv.code).toBe(0);
    const rows = csv.out.trimEnd().split("\n");
    // columns in the specification's order, like the API's select
    expect(rows[0]).toBe("ip,continent.country.city.name,asn.name");
    expect(rows[1]).toMatch(/^8\.8\.8\.8,[^,]*,Google LLC$/);
    expect(rows[3]).toBe("no address here,,");
    expect(rows).toHaveLength(6);
    const all = await run(["convert", "-", "--format", "csv"], { stdin: "1.1.1.1\n" });
    expect(all.out.split("\n")[0]!.split(",")).toHaveLength(36);
    expect(all.out.split("\n")[1]).toContain('"Cloudflare, Inc."');

    const json = await run(["convert", "-", "--json", "--fields", "ip"], { stdin: LINES.join("\n") });
    expect(JSON.parse(json.out)).toEqual(EXPECTED_IPS.map((ip) => ({ ip })));
    expect(JSON.parse((await run(["convert", "-", "--json"], { stdin: "\n\n" })).out)).toEqual([]);
  }, SLOW);

  it("convert: bad arguments exit 2 with one line", async () => {
    for (const argv of [
      ["convert", join(dir, "missing.txt")],
      ["convert", "-", "--fields", "ip,nope"],
      ["convert", "-", "--format", "xml"],
      ["convert", "-", "--key", "ipa_sk_x"],
      ["convert", "-", "--server", "http://127.0.0.1:9"],
      ["convert", "-", "--server", "ftp://x", "--key", "k"],
      ["convert"],
    ]) {
      const result = await run(argv);
      expect(result.code, argv.join(" ")).toBe(2);
      expect(result.out, argv.join(" ")).toBe("");
      expect(result.err.split("\n"), argv.join(" ")).toHaveLength(1);
    }
  }, SLOW);

  it("the real binary: clean stdout, no progress bar when stderr is piped, no ./data created", async () => {
    const file = join(dir, "binary.txt");
    writeFileSync(file, "8.8.8.8\n1.1.1.1\n");
    const cwd = mkdtempSync(join(tmpdir(), "ipatlas-cwd-"));
    try {
      const { stdout, stderr } = await exec(process.execPath, [BIN, "convert", file, "--fields", "ip,asn.number"], { cwd, env: { ...process.env, IPATLAS_LOG_LEVEL: "warn" } });
      expect(stdout).toBe('{"ip":"8.8.8.8","asn":{"number":15169}}\n{"ip":"1.1.1.1","asn":{"number":13335}}\n');
      expect(stderr).toBe("");
      const { stdout: listed } = await exec("ls", ["-A", cwd]);
      expect(listed).toBe("");
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  }, SLOW);
});

describe("ipatlas convert --server", () => {
  let server: TestServer;
  let key: string;
  let freeKey: string;
  let projectId: string;
  beforeAll(async () => {
    server = await startServer({ dataDir: makeDataDir() });
    const created = await server.cli("project", "create", "--name", "bulk", "--plan", "growth");
    key = created.secretKey;
    projectId = created.project.id;
    freeKey = (await server.cli("project", "create", "--name", "small", "--plan", "free")).secretKey;
  }, SLOW);
  afterAll(() => server?.stop());

  it("sends chunks of 5000 to the bulk API; every address stored and counted", async () => {
    const ips = Array.from({ length: 5003 }, (_, i) => `8.8.${(i >> 8) & 255}.${i & 255}`);
    const file = join(dir, "server.txt");
    writeFileSync(file, ips.join("\n"));
    const result = await run(["convert", file, "--server", server.url, "--key", key, "--fields", "ip,continent.country.code"]);
    expect(result.err).toBe("");
    expect(result.code).toBe(0);
    const records = result.out.trim().split("\n").map((line) => JSON.parse(line));
    expect(records.map((r) => r.ip)).toEqual(ips);
    expect(records[0].continent.country.code).toBe("US");
    expect((await server.cli("usage", "--project", projectId)).used).toBe(5003);
  }, SLOW);

  it("a refused plan limit ends with exit 1 and when to retry; the key may come from IPATLAS_API_KEY", async () => {
    const file = join(dir, "too-many.txt");
    writeFileSync(file, Array.from({ length: 1001 }, () => "1.1.1.1").join("\n"));
    const result = await run(["convert", file, "--server", server.url], { env: { IPATLAS_API_KEY: freeKey } });
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/^ipatlas: Plan conversion limit exceeded; retry after \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  }, SLOW);

  it("waits out a 429 with Retry-After and sends the chunk again", async () => {
    // a loopback proxy in front of the real server that refuses the first request
    let refused = 0;
    const proxy: Server = createServer((req, res) => {
      if (refused++ === 0) {
        res.writeHead(429, { "content-type": "application/json", "retry-after": "1" });
        res.end(JSON.stringify({ success: false, message: "Too many requests", code: 429, data: null, _req: { reqId: "r", resTime: 0 } }));
        return;
      }
      const upstream = httpRequest(`${server.url}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      });
      req.pipe(upstream);
    });
    proxy.listen(0, "127.0.0.1");
    await once(proxy, "listening");
    try {
      const port = (proxy.address() as { port: number }).port;
      const started = Date.now();
      const result = await run(["convert", "-", "--server", `http://127.0.0.1:${port}`, "--key", key, "--fields", "ip"], { stdin: "8.8.8.8\n" });
      expect(result.code).toBe(0);
      expect(result.out).toBe('{"ip":"8.8.8.8"}\n');
      expect(result.err).toMatch(/^ipatlas: Too many requests; retrying in 1\.\d s$/);
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
      expect(refused).toBe(2);
    } finally {
      proxy.close();
    }
  }, SLOW);
});
