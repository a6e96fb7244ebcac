/** Where recent conversions came from: countries shaded by count, dots at the located coordinates. */
import topology from "world-atlas/countries-110m.json";
import type { Topology } from "topojson-specification";
import type { ConversionMap } from "../schemas.js";
import { countryPaths, MAP_VIEWBOX, project } from "./country-paths.js";
import { formatNumber } from "../format.js";

// drawn once per page load: the shapes never change
let shapes: ReturnType<typeof countryPaths> | null = null;
const getShapes = () => (shapes ??= countryPaths(topology as unknown as Topology));

export function WorldMap({ map }: { map: ConversionMap }) {
  const counts = new Map(map.countries.filter((c) => c.numeric).map((c) => [c.numeric!, c]));
  const max = Math.max(1, ...map.countries.map((c) => c.count));
  const maxPoint = Math.max(1, ...map.points.map((p) => p.count));
  const summary =
    map.countries.length === 0
      ? "No located conversions yet"
      : `Located conversions by country, from the latest ${formatNumber(map.sampled)}: ` +
        map.countries
          .slice(0, 5)
          .map((c) => `${c.name} ${formatNumber(c.count)}`)
          .join(", ");
  return (
    <figure class="world-map">
      <svg viewBox={`0 0 ${MAP_VIEWBOX.width} ${MAP_VIEWBOX.height}`} role="img" aria-labelledby="map-title map-desc" data-testid="world-map">
        <title id="map-title">Map of recent conversions</title>
        <desc id="map-desc">{summary}</desc>
        <g class="countries">
          {getShapes().map((shape) => {
            const hit = counts.get(shape.id);
            const shade = hit ? 0.25 + 0.75 * (hit.count / max) : 0;
            return (
              <path
                key={`${shape.id}${shape.name}`}
                d={shape.d}
                class={hit ? "country hit" : "country"}
                style={hit ? { fillOpacity: shade } : undefined}
                data-country={hit?.code}
              >
                <title>{hit ? `${hit.name}: ${formatNumber(hit.count)}` : shape.name}</title>
              </path>
            );
          })}
        </g>
        <g class="points">
          {map.points.map((point) => {
            const { x, y } = project(point.longitude, point.latitude);
            return (
              <circle key={`${x},${y}`} cx={x} cy={y} r={1 + 2.5 * Math.sqrt(point.count / maxPoint)} class="point" data-testid="map-point">
                <title>{`${point.label}: ${formatNumber(point.count)}`}</title>
              </circle>
            );
          })}
        </g>
      </svg>
      <figcaption class="muted">
        {summary}. Country shapes: Natural Earth (public domain) via world-atlas.
      </figcaption>
    </figure>
  );
}
