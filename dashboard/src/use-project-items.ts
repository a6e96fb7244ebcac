/**
 * The list a project panel shows (its keys, its websites): loaded when the project changes,
 * reloaded after every action, with one error line. One copy for every panel.
 */
import { useSignal, type Signal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { errorText } from "./format.js";

export interface ProjectItems<T> {
  /** null while loading */
  items: Signal<T[] | null>;
  error: Signal<string>;
  /** runs an action, then reloads the list; an error lands in `error` */
  act: (work: () => Promise<void>) => Promise<void>;
}

export function useProjectItems<T>(projectId: string, fetchItems: () => Promise<T[]>, onProjectChange: () => void): ProjectItems<T> {
  const items = useSignal<T[] | null>(null);
  const error = useSignal("");

  const load = async () => {
    try {
      items.value = await fetchItems();
    } catch (e) {
      error.value = errorText(e);
    }
  };
  useEffect(() => {
    items.value = null;
    onProjectChange();
    void load();
  }, [projectId]);

  const act = async (work: () => Promise<void>) => {
    error.value = "";
    try {
      await work();
      await load();
    } catch (e) {
      error.value = errorText(e);
    }
  };
  return { items, error, act };
}
