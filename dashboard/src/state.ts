/** The dashboard's shared state, as signals: who is signed in, the projects, which one is open. */
import { computed, signal } from "@preact/signals";
import type { AdminProject } from "./schemas.js";

export type Tab = "keys" | "websites" | "conversions";
export const TABS: ReadonlyArray<{ id: Tab; label: string }> = [
  { id: "keys", label: "Secret keys" },
  { id: "websites", label: "Websites" },
  { id: "conversions", label: "Conversions" },
];

/** null while the first session check runs */
export const signedIn = signal<boolean | null>(null);
export const projects = signal<AdminProject[]>([]);
export const selectedProjectId = signal<string | null>(null);
export const selectedTab = signal<Tab>("keys");
export const selectedProject = computed(() => projects.value.find((p) => p.id === selectedProjectId.value) ?? null);

/** a polite status line for screen readers and sighted users alike */
export const announcement = signal("");
export const announce = (text: string) => {
  // cleared first so that the same text twice is read twice
  announcement.value = "";
  queueMicrotask(() => (announcement.value = text));
};

/** keeps project and tab in the address (#/p/<id>/<tab>) so that reload and back work */
export function readLocation(): void {
  const match = /^#\/p\/([^/]+)(?:\/(keys|websites|conversions))?$/.exec(location.hash);
  selectedProjectId.value = match ? decodeURIComponent(match[1]!) : null;
  selectedTab.value = (match?.[2] as Tab | undefined) ?? "keys";
}

export function openProject(id: string | null, tab: Tab = selectedTab.value): void {
  selectedProjectId.value = id;
  selectedTab.value = tab;
  const hash = id ? `#/p/${encodeURIComponent(id)}/${tab}` : "#/";
  if (location.hash !== hash) history.pushState(null, "", hash);
}
