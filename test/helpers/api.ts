/**
 * One running server per suite and backend, with a project made through the real CLI, and a
 * small fetch wrapper that parses the envelope. Everything goes over HTTP on loopback.
 */
import { createBackend, type Backend } from "./backends.js";
import { startServer, type TestServer } from "./server.js";
import { errorEnvelopeSchema } from "../../lib/schemas/envelope.js";

export interface ApiHarness {
  server: TestServer;
  backend: Backend;
  /** creates a project through the CLI; returns its id and first secret key */
  project(plan?: string, name?: string): Promise<{ id: string; secretKey: string }>;
  call(path: string, init?: CallInit): Promise<ApiAnswer>;
  stop(): Promise<void>;
}

export interface CallInit {
  method?: string;
  key?: string;
  origin?: string;
  json?: unknown;
  body?: BodyInit;
  headers?: Record<string, string>;
}

export interface ApiAnswer {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export async function startApi(backendName: Backend["name"], env: Record<string, string> = {}): Promise<ApiHarness> {
  const backend = await createBackend(backendName);
  const server = await startServer({ env: { ...backend.env, ...env } });
  return {
    server,
    backend,
    async project(plan = "free", name = "test") {
      const created = await server.cli("project", "create", "--name", name, "--plan", plan);
      return { id: created.project.id, secretKey: created.secretKey };
    },
    async call(path, init = {}) {
      const headers: Record<string, string> = { ...init.headers };
      if (init.key !== undefined) headers["x-api-key"] = init.key;
      if (init.origin !== undefined) headers.origin = init.origin;
      let body = init.body;
      if (init.json !== undefined) {
        body = JSON.stringify(init.json);
        headers["content-type"] ??= "application/json";
      }
      const res = await fetch(server.url + path, { method: init.method ?? (body === undefined ? "GET" : "POST"), headers, body });
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
    },
    async stop() {
      await server.stop();
      await backend.dispose();
    },
  };
}

/** Every API answer is the envelope with code = status and x-request-id = _req.reqId. */
export function expectEnvelope(answer: ApiAnswer, status: number, message?: string): void {
  const parsed = errorEnvelopeSchema.safeParse({ ...answer.body, data: null });
  if (!parsed.success) throw new Error(`not an envelope: ${JSON.stringify(answer.body)}`);
  if (answer.status !== status || answer.body.code !== status) {
    throw new Error(`expected ${status}, got ${answer.status} ${JSON.stringify(answer.body)}`);
  }
  if (answer.body.success !== status < 400) throw new Error(`success must be ${status < 400}`);
  if (answer.headers.get("x-request-id") !== answer.body._req.reqId) throw new Error("x-request-id differs from _req.reqId");
  if (answer.headers.get("x-api-version") !== "1.0.0") throw new Error("x-api-version missing");
  if (message !== undefined && answer.body.message !== message) {
    throw new Error(`expected message "${message}", got "${answer.body.message}"`);
  }
}
