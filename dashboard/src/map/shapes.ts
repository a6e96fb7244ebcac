/**
 * The country outlines, fetched once per page from the JSON asset the build wrote (its address
 * is in the page's <meta name="ipatlas-map-data">), so the map costs the first load nothing.
 */
import type { CountryPath } from "./projection.js";

let loading: Promise<CountryPath[]> | null = null;

export function loadCountryShapes(): Promise<CountryPath[]> {
  loading ??= (async () => {
    const url = document.querySelector<HTMLMetaElement>('meta[name="ipatlas-map-data"]')?.content;
    if (!url) throw new Error("The map data is missing from this build");
    const response = await fetch(url, { credentials: "same-origin" });
    if (!response.ok) throw new Error(`The map data could not be loaded (HTTP ${response.status})`);
    return (await response.json()) as CountryPath[];
  })();
  // a failed load may be tried again on the next render
  loading.catch(() => (loading = null));
  return loading;
}
