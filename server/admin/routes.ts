/**
 * The admin API (/admin/api) and the dashboard page (/dashboard). Every admin route needs a
 * signed-in session; every mutation its CSRF token. The operations are the CLI's, from
 * server/services: this file only checks input, calls them, and shapes the answers.
 */
import { Hono } from "hono";
import { deleteCookie, setCookie } from "hono/cookie";
import { compress } from "hono/compress";
import {
  ADMIN_MESSAGES,
  MAP_RECENT_CONVERSIONS,
  SESSION_COOKIE,
  addWebsiteBodySchema,
  adminConversionsQuerySchema,
  conversionIdParamSchema,
  exportQuerySchema,
  createKeyBodySchema,
  createProjectBodySchema,
  setPlanBodySchema,
  signInBodySchema,
  type AdminWebsite,
  type AdminProject,
  type AdminConversionsQuery,
} from "../../lib/schemas/admin.js";
import { MESSAGES } from "../../lib/schemas/messages.js";
import type { AppDeps, AppEnv } from "../app-types.js";
import { clientIp } from "../middleware/client-ip.js";
import { ApiError, reply } from "../middleware/envelope.js";
import { jsonBody } from "../middleware/json-body.js";
import { storableText } from "../convert/convert-and-store.js";
import { periodOf } from "../convert/period.js";
import { parseIpSearch } from "../storage/index.js";
import { readWidgetManifest } from "../widget/manifest.js";
import { takesWidget, widgetSnippet } from "../widget/snippet.js";
import { resolveAdminToken } from "./admin-token.js";
import { conversionMap, conversionPage, type ConversionFilter } from "./conversion-views.js";
import { exportStream } from "./conversion-export.js";
import { dashboardFiles } from "./dashboard-files.js";
import { assertSameOrigin, currentSession, sessionGuard } from "./session-guard.js";
import { SessionStore, secretsEqual } from "./sessions.js";
import { SignInThrottle } from "./sign-in-throttle.js";
import { fromService, parseInput } from "./validate.js";

const SESSION_LIFETIME_MS = 12 * 60 * 60_000;

export interface AdminApiOptions {
  /** defaults: IPATLAS_ADMIN_TOKEN, else the data dir's admin-token file */
  token?: string;
  throttle?: SignInThrottle;
}

export function adminApiRoutes(deps: AppDeps, options: AdminApiOptions = {}): Hono<AppEnv> {
  const token = options.token ?? resolveAdminToken({ envToken: process.env.IPATLAS_ADMIN_TOKEN, dataDir: deps.config.dataDir }).value;
  const sessions = new SessionStore({ secret: token, lifetimeMs: SESSION_LIFETIME_MS });
  const throttle = options.throttle ?? new SignInThrottle({ maxQueued: deps.config.limits.signInQueuePerAddress });
  const { services, storage } = deps;
  const sameOrigin = { publicUrl: deps.config.publicUrl, trustProxy: deps.config.trustProxy };
  const app = new Hono<AppEnv>();

  app.use("*", clientIp({ trustProxy: deps.config.trustProxy, maxForwardedForBytes: deps.config.limits.maxForwardedForBytes }));
  // admin answers are never cached: they carry keys and session tokens
  app.use("*", async (c, next) => {
    await next();
    c.res.headers.set("cache-control", "no-store");
  });

  // ---- session ----
  app.post("/session", jsonBody(), async (c) => {
    assertSameOrigin(c, sameOrigin);
    const input = parseInput(signInBodySchema, c.get("jsonBody"));
    const outcome = await throttle.attempt(c.get("clientBucket") || "unknown", () => secretsEqual(input.token, token), c.req.raw.signal);
    if (outcome === "busy") throw new ApiError(429, ADMIN_MESSAGES.tooManySignIns, null, { "Retry-After": "1" });
    if (outcome !== "accepted") throw new ApiError(401, ADMIN_MESSAGES.invalidToken);
    const { id, session } = sessions.create();
    setCookie(c, SESSION_COOKIE, id, {
      httpOnly: true,
      sameSite: "Strict",
      path: "/admin",
      secure: new URL(c.req.url).protocol === "https:" || (deps.config.publicUrl?.startsWith("https:") ?? false),
      maxAge: SESSION_LIFETIME_MS / 1000,
    });
    return reply(c, 200, ADMIN_MESSAGES.signedIn, sessionView(session));
  });

  // everything below needs a session; bodies are read only once it is there
  app.use("*", sessionGuard(sessions, sameOrigin));
  const withBody = jsonBody();

  // past the guard, so the session exists
  app.get("/session", (c) => reply(c, 200, MESSAGES.success, sessionView(currentSession(c, sessions)!.session)));
  app.delete("/session", (c) => {
    sessions.destroy(currentSession(c, sessions)?.id);
    deleteCookie(c, SESSION_COOKIE, { path: "/admin" });
    return reply(c, 200, ADMIN_MESSAGES.signedOut, null);
  });

  // ---- projects ----
  app.get("/projects", async (c) => {
    const now = new Date();
    const period = periodOf(now);
    const projects: AdminProject[] = (await services.listProjects(now)).map(({ used, limit, ...project }) => ({
      ...project,
      usage: { plan: project.plan, used, limit, periodStart: period.start.toISOString(), periodEnd: period.end.toISOString() },
    }));
    return reply(c, 200, MESSAGES.success, { projects });
  });
  app.post("/projects", withBody, async (c) => {
    const input = parseInput(createProjectBodySchema, c.get("jsonBody"));
    return reply(c, 201, "Project created", await fromService(() => services.createProject(input)));
  });
  app.post("/projects/:projectId/plan", withBody, async (c) => {
    const input = parseInput(setPlanBodySchema, c.get("jsonBody"));
    return reply(c, 200, "Plan changed", await fromService(() => services.setPlan(c.req.param("projectId"), input.plan)));
  });

  // ---- keys ----
  app.get("/projects/:projectId/keys", async (c) => {
    const keys = await fromService(() => services.listKeys(c.req.param("projectId")));
    return reply(c, 200, MESSAGES.success, { keys });
  });
  app.post("/projects/:projectId/keys", withBody, async (c) => {
    const input = parseInput(createKeyBodySchema, c.get("jsonBody"));
    const created = await fromService(() => services.createKey({ projectId: c.req.param("projectId"), name: input.name }));
    return reply(c, 201, "Key created", created);
  });
  app.post("/keys/:keyId/roll", async (c) => {
    const rolled = await fromService(() => services.rollKey(c.req.param("keyId")));
    const website = rolled.key.websiteId ? await storage.getWebsite(rolled.key.websiteId) : null;
    const snippet = rolled.publicKey ? snippetFor(c.req.url, website?.origin ?? "", rolled.publicKey) : undefined;
    return reply(c, 200, "Key rolled", { ...rolled, ...(snippet !== undefined && { snippet }) });
  });
  app.post("/keys/:keyId/revoke", async (c) => {
    return reply(c, 200, "Key revoked", await fromService(() => services.revokeKey(c.req.param("keyId"))));
  });

  // ---- websites ----
  app.get("/projects/:projectId/websites", async (c) => {
    const projectId = c.req.param("projectId");
    const [websites, keys] = await fromService(() => Promise.all([services.listWebsites(projectId), services.listKeys(projectId)]));
    const view: AdminWebsite[] = websites.map((website) => {
      const key = keys.find((k) => k.websiteId === website.id && !k.revokedAt);
      return { id: website.id, origin: website.origin, keyId: key?.id ?? null, keyPrefix: website.keyPrefix };
    });
    return reply(c, 200, MESSAGES.success, { websites: view });
  });
  app.post("/projects/:projectId/websites", withBody, async (c) => {
    const input = parseInput(addWebsiteBodySchema, c.get("jsonBody"));
    const added = await fromService(() => services.addWebsite({ projectId: c.req.param("projectId"), origin: input.origin }));
    const website: AdminWebsite = { id: added.website.id, origin: added.website.origin, keyId: added.key.id, keyPrefix: added.key.prefix };
    return reply(c, 201, "Website added", { website, publicKey: added.publicKey, snippet: snippetFor(c.req.url, added.website.origin, added.publicKey) });
  });
  app.delete("/websites/:websiteId", async (c) => {
    const removed = await fromService(() => services.removeWebsite(c.req.param("websiteId")));
    return reply(c, 200, "Website removed", { website: { ...removed.website, keyId: null, keyPrefix: null } });
  });

  // ---- conversions ----
  /** the list's filters from the query, cleaned as the public GET /conversions/list cleans ipSearch */
  const filterOf = (query: Omit<AdminConversionsQuery, "offset" | "limit">): ConversionFilter => ({
    ip: query.ipSearch ? parseIpSearch(storableText(query.ipSearch)) : undefined,
    status: query.status,
    country: query.country,
    asn: query.asn,
  });

  app.get("/projects/:projectId/conversions", async (c) => {
    const query = parseInput(adminConversionsQuerySchema, c.req.query(), "Query");
    const project = await fromService(() => services.requireProject(c.req.param("projectId")));
    const page = await conversionPage(storage, { projectId: project.id, offset: query.offset, limit: query.limit, ...filterOf(query) });
    return reply(c, 200, MESSAGES.success, page);
  });
  // before /conversions/:uniqueId, which would take "export" as an id
  app.get("/projects/:projectId/conversions/export", async (c) => {
    const query = parseInput(exportQuerySchema, c.req.query(), "Query");
    const project = await fromService(() => services.requireProject(c.req.param("projectId")));
    const stamp = new Date().toISOString().slice(0, 10);
    return new Response(exportStream(storage, project.id, filterOf(query), query.format), {
      headers: {
        "content-type": query.format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson; charset=utf-8",
        "content-disposition": `attachment; filename="conversions-${project.id}-${stamp}.${query.format}"`,
        "cache-control": "no-store",
        "x-content-type-options": "nosniff",
      },
    });
  });
  app.get("/projects/:projectId/conversions/:uniqueId", async (c) => {
    const project = await fromService(() => services.requireProject(c.req.param("projectId")));
    const uniqueId = parseInput(conversionIdParamSchema, c.req.param("uniqueId"));
    const conversion = await storage.getConversion(project.id, uniqueId);
    if (!conversion) throw new ApiError(404, MESSAGES.conversionNotFound);
    return reply(c, 200, MESSAGES.success, { conversion });
  });
  app.get("/projects/:projectId/map", async (c) => {
    const project = await fromService(() => services.requireProject(c.req.param("projectId")));
    const query = parseInput(adminConversionsQuerySchema, c.req.query(), "Query");
    return reply(c, 200, MESSAGES.success, await conversionMap(storage, project.id, MAP_RECENT_CONVERSIONS, filterOf(query)));
  });

  /** the widget's embed code with this key, or null when the widget is not built or the origin is an extension's */
  function snippetFor(requestUrl: string, origin: string, publicKey: string): { html: string } | null {
    if (!takesWidget(origin)) return null;
    const manifest = readWidgetManifest();
    if (!manifest) return null;
    const baseUrl = deps.config.publicUrl ?? new URL(requestUrl).origin;
    return { html: widgetSnippet({ baseUrl, publicKey, manifest }) };
  }

  return app;
}

function sessionView(session: { csrfToken: string; expiresAt: number }) {
  return { csrfToken: session.csrfToken, expiresAt: new Date(session.expiresAt).toISOString() };
}

export function dashboardRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", compress());
  app.route("/", dashboardFiles({ imageOrigins: deps.config.publicUrl ? [new URL(deps.config.publicUrl).origin] : [] }));
  return app;
}
