/** The project list (sidebar), the create form, and the open project's plan and usage. */
import { useSignal } from "@preact/signals";
import { api } from "./api.js";
import { errorText } from "./format.js";
import { PLANS, planSchema, type AdminProject, type Plan } from "./schemas.js";
import { SecretOnce } from "./secret-once.js";
import { announce, openProject, projects, selectedProjectId } from "./state.js";
import { UsageBar } from "./usage-bar.js";
import { ErrorAlert } from "./error-alert.js";

export async function reloadProjects(): Promise<void> {
  projects.value = (await api.projects()).projects;
}

const planLabel = (plan: Plan) => {
  const limit = PLANS[plan];
  return `${plan[0]!.toUpperCase()}${plan.slice(1)} (${limit === null ? "unlimited" : `${limit.toLocaleString("en-US")} a month`})`;
};

function PlanSelect({ id, value, onChange }: { id: string; value: Plan; onChange: (plan: Plan, select: HTMLSelectElement) => void }) {
  return (
    <select id={id} value={value} onChange={(e) => onChange(e.currentTarget.value as Plan, e.currentTarget)}>
      {planSchema.options.map((p) => (
        <option value={p}>{planLabel(p)}</option>
      ))}
    </select>
  );
}

export function ProjectNav() {
  return (
    <nav aria-label="Projects" class="project-nav">
      <h2>Projects</h2>
      {projects.value.length === 0 ? (
        <p class="muted">No projects yet.</p>
      ) : (
        <ul>
          {projects.value.map((project) => (
            <li key={project.id}>
              <a
                href={`#/p/${encodeURIComponent(project.id)}/keys`}
                aria-current={project.id === selectedProjectId.value ? "page" : undefined}
                onClick={(e) => {
                  e.preventDefault();
                  openProject(project.id, "keys");
                }}
              >
                <span>{project.name}</span>
                <span class="badge">{project.plan}</span>
              </a>
            </li>
          ))}
        </ul>
      )}
      <CreateProject />
    </nav>
  );
}

function CreateProject() {
  const name = useSignal("");
  const plan = useSignal<Plan>("free");
  const error = useSignal("");
  const created = useSignal<{ projectId: string; secretKey: string } | null>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    error.value = "";
    try {
      const result = await api.createProject(name.value, plan.value);
      name.value = "";
      await reloadProjects();
      openProject(result.project.id, "keys");
      created.value = { projectId: result.project.id, secretKey: result.secretKey };
      announce(`Project ${result.project.name} created`);
    } catch (e) {
      error.value = errorText(e);
    }
  };

  return (
    <>
      {/* folded once projects exist, so a narrow window shows the project first */}
      <details class="create-project" open={projects.value.length === 0}>
        <summary>New project</summary>
        <form class="stack" onSubmit={submit} aria-label="New project">
          <label for="project-name">Name</label>
          <input id="project-name" required maxLength={100} value={name.value} onInput={(e) => (name.value = e.currentTarget.value)} />
          <label for="project-plan">Plan</label>
          <PlanSelect id="project-plan" value={plan.value} onChange={(value) => (plan.value = value)} />
          <ErrorAlert message={error.value} />
          <button type="submit">Create project</button>
        </form>
      </details>
      {created.value && (
        <SecretOnce
          title="The project's first secret key (named default)"
          value={created.value.secretKey}
          onDismiss={() => (created.value = null)}
        />
      )}
    </>
  );
}

export function ProjectHeader({ project }: { project: AdminProject }) {
  const error = useSignal("");
  const changePlan = async (plan: Plan, select: HTMLSelectElement) => {
    error.value = "";
    const limit = PLANS[plan];
    const used = project.usage.used;
    const consequence =
      limit !== null && used >= limit
        ? ` This month's ${used.toLocaleString("en-US")} conversions are already over its limit: requests are refused until next month.`
        : "";
    // a plan decides what the project may use: never changed by a slip of the mouse wheel
    if (!confirm(`Change ${project.name} from ${planLabel(project.plan)} to ${planLabel(plan)}? It takes effect on the next request.${consequence}`)) {
      select.value = project.plan;
      return;
    }
    try {
      await api.setPlan(project.id, plan);
      await reloadProjects();
      announce(`Plan changed to ${plan}`);
    } catch (e) {
      error.value = errorText(e);
    }
  };
  return (
    <header class="project-header card">
      <div class="project-title">
        <h1 id="project-title">{project.name}</h1>
        <p class="muted">
          Project id <code>{project.id}</code>
        </p>
      </div>
      <div class="plan">
        <label for="plan-select">Plan</label>
        <PlanSelect id="plan-select" value={project.plan} onChange={changePlan} />
        <ErrorAlert message={error.value} />
      </div>
      <UsageBar usage={project.usage} />
    </header>
  );
}
