/**
 * Country outlines for the conversions map: Natural Earth 1:110m shapes from the world-atlas
 * package (TopoJSON), drawn in an equirectangular projection so that a conversion's
 * latitude/longitude maps to the same plane with one line of arithmetic. Runs at build time
 * (dashboard/build.ts writes the paths as a JSON asset); the page fetches them with the map.
 */
import { feature } from "topojson-client";
import type { Topology, GeometryCollection } from "topojson-specification";
import type { Position } from "geojson";

import { project, type CountryPath } from "./projection.js";

export { MAP_VIEWBOX, project, type CountryPath } from "./projection.js";

const round = (n: number) => Math.round(n * 10) / 10;

/**
 * Rings that cross the antimeridian (Russia, Fiji) jump from +180 to -180 and would draw a band
 * across the whole map. Longitudes are made continuous along the ring and the ring is moved
 * into view by whole turns; the part beyond the edge is clipped by the view box.
 */
function ringPath(ring: Position[]): string {
  const longitudes: number[] = [];
  for (const [lon] of ring) {
    const previous = longitudes.at(-1);
    let value = lon!;
    if (previous !== undefined) while (value - previous > 180) value -= 360;
    if (previous !== undefined) while (previous - value > 180) value += 360;
    longitudes.push(value);
  }
  const mean = longitudes.reduce((sum, lon) => sum + lon, 0) / longitudes.length;
  const shift = Math.round(mean / 360) * 360;
  let d = "";
  for (let i = 0; i < ring.length; i++) {
    const { x, y } = project(longitudes[i]! - shift, ring[i]![1]!);
    d += `${i === 0 ? "M" : "L"}${round(x)} ${round(y)}`;
  }
  return `${d}Z`;
}

export function countryPaths(topology: Topology): CountryPath[] {
  const collection = feature(topology, topology.objects.countries as GeometryCollection<{ name: string }>);
  const paths: CountryPath[] = [];
  for (const country of collection.features) {
    const geometry = country.geometry;
    if (!geometry || country.properties?.name === "Antarctica") continue;
    const polygons = geometry.type === "Polygon" ? [geometry.coordinates] : geometry.type === "MultiPolygon" ? geometry.coordinates : [];
    const d = polygons.flatMap((polygon) => polygon.map(ringPath)).join("");
    paths.push({ id: String(country.id ?? ""), name: country.properties?.name ?? "", d });
  }
  return paths;
}
