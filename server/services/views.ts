/** The shapes the CLI (`--json`) and the admin API show: never a hash, never a stored secret. */
import type { Project, Website } from "../storage/types.js";

export const projectView = (project: Project) => ({ id: project.id, name: project.name, plan: project.plan });

export const websiteView = (website: Website) => ({ id: website.id, origin: website.origin, projectId: website.projectId });

export type ProjectView = ReturnType<typeof projectView>;
export type WebsiteView = ReturnType<typeof websiteView>;
