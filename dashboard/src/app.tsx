/** The page: sign-in gate, then the project list beside the open project's tabs. */
import { useEffect } from "preact/hooks";
import { api, setSignedOutHandler } from "./api.js";
import { ConversionsPanel } from "./conversions.js";
import { KeysPanel } from "./keys.js";
import { ProjectHeader, ProjectNav, reloadProjects } from "./projects.js";
import { SignIn } from "./sign-in.js";
import {
  announce,
  announcement,
  openProject,
  projects,
  readLocation,
  selectedProject,
  selectedProjectId,
  selectedTab,
  signedIn,
  TABS,
  type Tab,
} from "./state.js";
import { WebsitesPanel } from "./websites.js";
import { DataFreshness } from "./data-freshness.js";

export function App() {
  useEffect(() => {
    setSignedOutHandler(() => (signedIn.value = false));
    readLocation();
    addEventListener("popstate", readLocation);
    api.currentSession().then(
      () => (signedIn.value = true),
      () => (signedIn.value = false),
    );
    return () => removeEventListener("popstate", readLocation);
  }, []);

  useEffect(() => {
    if (!signedIn.value) return;
    void reloadProjects().then(() => {
      // with one project there is nothing to choose: open it
      if (projects.value.length === 1 && !selectedProjectId.value) openProject(projects.value[0]!.id, "conversions");
    }, () => {});
  }, [signedIn.value]);

  return (
    <>
      <a href="#main" class="skip-link">
        Skip to content
      </a>
      <div class="visually-hidden" role="status" aria-live="polite">
        {announcement.value}
      </div>
      {signedIn.value === null ? <p class="loading">Loading…</p> : signedIn.value ? <SignedIn /> : <SignIn />}
    </>
  );
}

function SignedIn() {
  const signOut = async () => {
    try {
      await api.signOut();
    } finally {
      signedIn.value = false;
      projects.value = [];
      announce("Signed out");
    }
  };
  const project = selectedProject.value;
  return (
    <div class="layout">
      <header class="topbar">
        <a class="brand" href="#/" onClick={(e) => (e.preventDefault(), openProject(null))}>
          IP Atlas
        </a>
        <button type="button" class="secondary" onClick={signOut}>
          Sign out
        </button>
      </header>
      <aside class="sidebar">
        <ProjectNav />
      </aside>
      <main id="main" class="content" tabIndex={-1}>
        {project ? (
          <>
            <ProjectHeader project={project} />
            <ProjectTabs />
            <div role="tabpanel" id={`panel-${selectedTab.value}`} aria-labelledby={`tab-${selectedTab.value}`} class="card">
              {selectedTab.value === "keys" && <KeysPanel key={project.id} projectId={project.id} />}
              {selectedTab.value === "websites" && <WebsitesPanel key={project.id} projectId={project.id} />}
              {selectedTab.value === "conversions" && <ConversionsPanel key={project.id} projectId={project.id} />}
            </div>
          </>
        ) : (
          <section class="card empty">
            <h1>Welcome</h1>
            <p>
              {projects.value.length === 0
                ? "Create a project to get its first secret key."
                : "Choose a project to manage its keys, websites and conversions."}
            </p>
            <DataFreshness />
          </section>
        )}
      </main>
    </div>
  );
}

/** WAI-ARIA tabs: arrow keys move between tabs, only the selected one is in the tab order. */
function ProjectTabs() {
  const select = (tab: Tab, focus = false) => {
    openProject(selectedProject.value!.id, tab);
    if (focus) document.getElementById(`tab-${tab}`)?.focus();
  };
  const onKeyDown = (event: KeyboardEvent) => {
    const index = TABS.findIndex((t) => t.id === selectedTab.value);
    const step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
    if (event.key === "Home") select(TABS[0]!.id, true);
    else if (event.key === "End") select(TABS[TABS.length - 1]!.id, true);
    else if (step) select(TABS[(index + step + TABS.length) % TABS.length]!.id, true);
    else return;
    event.preventDefault();
  };
  return (
    <div role="tablist" aria-label="Project sections" class="tabs" onKeyDown={onKeyDown}>
      {TABS.map((tab) => {
        const selected = tab.id === selectedTab.value;
        return (
          <button
            type="button"
            role="tab"
            id={`tab-${tab.id}`}
            aria-selected={selected}
            aria-controls={`panel-${tab.id}`}
            tabIndex={selected ? 0 : -1}
            onClick={() => select(tab.id)}
          >
            {tab.label}
          </button>
        );
      })}
    </div>
  );
}
