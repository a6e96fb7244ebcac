/** The map's drawing plane, shared by the build (country outlines) and the page (points). */

/** longitude -180..180 → x 0..360, latitude 84..-60 → y 0..144 (Antarctica cut) */
export const MAP_VIEWBOX = { width: 360, height: 144, north: 84 } as const;

export interface CountryPath {
  /** ISO 3166-1 numeric code as world-atlas writes it ("826"), or "" for disputed areas without one */
  id: string;
  name: string;
  d: string;
}

export function project(longitude: number, latitude: number): { x: number; y: number } {
  return { x: longitude + 180, y: MAP_VIEWBOX.north - latitude };
}
