/** The shapes the CLI (`--json`) and the admin API show: never a hash, never a stored secret. */
import type { ApiKey, Project, Website } from "../storage/types.js";

export const projectView = (project: Project) => ({ id: project.id, name: project.name, plan: project.plan });

export const keyView = (key: ApiKey) => ({
  id: key.id,
  name: key.name,
  kind: key.kind,
  prefix: key.prefix,
  projectId: key.projectId,
  websiteId: key.websiteId,
  createdAt: key.createdAt,
  lastUsedAt: key.lastUsedAt,
  revokedAt: key.revokedAt,
});

export const websiteView = (website: Website) => ({ id: website.id, origin: website.origin, projectId: website.projectId });

export type ProjectView = ReturnType<typeof projectView>;
export type KeyView = ReturnType<typeof keyView>;
export type WebsiteView = ReturnType<typeof websiteView>;
