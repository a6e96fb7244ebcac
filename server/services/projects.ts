/** Projects: create (with a first secret key), list with this month's usage, change plan, usage. */
import { planLimit, type Plan } from "../../lib/schemas/api.js";
import type { Storage } from "../storage/types.js";
import { generateKey } from "../keys/key-values.js";
import { ServiceError } from "../service-error.js";
import { periodOf } from "../convert/period.js";
import { keyView } from "../keys/key-admin.js";
import { projectView } from "./views.js";
import { validId, validName, validPlan } from "../service-input.js";

export function projectServices(storage: Storage, onChange: () => void) {
  async function requireProject(projectId: unknown) {
    const id = validId(projectId, "Project");
    const project = await storage.getProject(id);
    if (!project) throw new ServiceError("not-found", `Project not found: ${id}`);
    return project;
  }

  return {
    requireProject,

    async createProject(input: { name: unknown; plan?: unknown }) {
      const name = validName(input.name, "Project");
      const plan: Plan = input.plan === undefined ? "free" : validPlan(input.plan);
      const project = await storage.createProject({ name, plan });
      const generated = generateKey("secret");
      const key = await storage.createKey({ projectId: project.id, name: "default", kind: "secret", hash: generated.hash, prefix: generated.prefix });
      onChange();
      return { project: projectView(project), key: keyView(key), secretKey: generated.value };
    },

    async listProjects(now = new Date()) {
      const period = periodOf(now);
      const projects = await storage.listProjects();
      return Promise.all(
        projects.map(async (project) => ({
          ...projectView(project),
          used: await storage.usage(project.id, period.id),
          limit: planLimit(project.plan),
        })),
      );
    },

    async setPlan(projectId: unknown, plan: unknown) {
      const valid = validPlan(plan);
      const project = await requireProject(projectId);
      const updated = await storage.setPlan(project.id, valid);
      if (!updated) throw new ServiceError("not-found", `Project not found: ${project.id}`);
      onChange();
      return { project: projectView(updated) };
    },

    async usage(projectId: unknown, now = new Date()) {
      const project = await requireProject(projectId);
      const period = periodOf(now);
      return {
        plan: project.plan,
        used: await storage.usage(project.id, period.id),
        limit: planLimit(project.plan),
        periodStart: period.start.toISOString(),
        periodEnd: period.end.toISOString(),
      };
    },
  };
}
