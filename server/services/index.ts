/**
^ * The project / key / website operations, one implementation for the CLI (`ipatlas project ...`)
 * and the dashboard's admin API. `onChange` lets a running server drop its key cache at once.
 */
import type { Storage } from "../storage/types.js";
import { projectServices } from "./projects.js";
import { keyServices } from "../keys/key-admin.js";
import { websiteServices } from "./websites.js";

export { ServiceError } from "../service-error.js";

export function createAdminServices(storage: Storage, onChange: () => void = () => {}) {
  const projects = projectServices(storage, onChange);
  return {
    ...projects,
    ...keyServices(storage, onChange, projects.requireProject),
    ...websiteServices(storage, onChange, projects.requireProject),
  };
}

export type AdminServices = ReturnType<typeof createAdminServices>;
