/**
 * Where the filtered conversions came from: countries shaded by count, dots at the located
 * coordinates, a legend, and the details of what the pointer (or keyboard focus) is on.
 */
import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import type { ConversionMap } from "../schemas.js";
import { MAP_VIEWBOX, project, type CountryPath } from "./projection.js";
import { loadCountryShapes } from "./shapes.js";
import { errorText, formatNumber } from "../format.js";

interface Hovered {
  title: string;
  detail: string;
}

export function WorldMap({ map }: { map: ConversionMap }) {
  const shapes = useSignal<CountryPath[] | null>(null);
  const error = useSignal("");
  const hovered = useSignal<Hovered | null>(null);
  useEffect(() => {
    loadCountryShapes().then(
      (loaded) => (shapes.value = loaded),
      (e) => (error.value = errorText(e)),
    );
  }, []);

  const counts = new Map(map.countries.filter((c) => c.numeric).map((c) => [c.numeric!, c]));
  const max = Math.max(1, ...map.countries.map((c) => c.count));
  const maxPoint = Math.max(1, ...map.points.map((p) => p.count));
  const total = map.countries.reduce((sum, c) => sum + c.count, 0);
  const share = (count: number) => (total ? ` (${Math.round((count / total) * 100)}%)` : "");
  const summary =
    map.countries.length === 0
      ? "No located conversions match"
      : `Located conversions by country, from the latest ${formatNumber(map.sampled)} that match: ` +
        map.countries
          .slice(0, 5)
          .map((c) => `${c.name} ${formatNumber(c.count)}`)
          .join(", ");
  const show = (title: string, count: number | null) => () =>
    (hovered.value = { title, detail: count === null ? "no conversions" : `${formatNumber(count)} conversion${count === 1 ? "" : "s"}${share(count)}` });

  return (
    <figure class="world-map">
      <div class="map-frame" onMouseLeave={() => (hovered.value = null)}>
        {shapes.value === null ? (
          <div class="map-placeholder" aria-busy={!error.value}>
            {error.value || "Loading the map…"}
          </div>
        ) : (
          <svg viewBox={`0 0 ${MAP_VIEWBOX.width} ${MAP_VIEWBOX.height}`} role="img" aria-labelledby="map-title map-desc" data-testid="world-map">
            <title id="map-title">Map of the conversions that match the filter</title>
            <desc id="map-desc">{summary}</desc>
            <g class="countries">
              {shapes.value.map((shape) => {
                const hit = counts.get(shape.id);
                const shade = hit ? 0.25 + 0.75 * (hit.count / max) : 0;
                return (
                  <path
                    key={`${shape.id}${shape.name}`}
                    d={shape.d}
                    class={hit ? "country hit" : "country"}
                    style={hit ? { fillOpacity: shade } : undefined}
                    data-country={hit?.code}
                    onMouseEnter={show(hit?.name ?? shape.name, hit?.count ?? null)}
                    // countries with conversions are reachable by keyboard; focus shows the same details
                    tabIndex={hit ? 0 : undefined}
                    onFocus={hit ? show(hit.name, hit.count) : undefined}
                    aria-label={hit ? `${hit.name}: ${formatNumber(hit.count)}` : undefined}
                  />
                );
              })}
            </g>
            <g class="points">
              {map.points.map((point) => {
                const { x, y } = project(point.longitude, point.latitude);
                return (
                  <circle
                    key={`${x},${y}`}
                    cx={x}
                    cy={y}
                    r={1 + 2.5 * Math.sqrt(point.count / maxPoint)}
                    class="point"
                    data-testid="map-point"
                    onMouseEnter={show(point.label, point.count)}
                  />
                );
              })}
            </g>
          </svg>
        )}
        {hovered.value && (
          <div class="map-hover" data-testid="map-hover" aria-live="polite">
            <strong>{hovered.value.title}</strong>
            <span>{hovered.value.detail}</span>
          </div>
        )}
      </div>
      <div class="map-legend" aria-hidden="true">
        <span class="legend-scale">
          <span>1</span>
          <span class="legend-ramp" />
          <span>{formatNumber(max)}</span>
          <span class="muted">conversions per country</span>
        </span>
        <span class="legend-dot">
          <span class="dot" /> a located city (larger: more)
        </span>
      </div>
      <figcaption class="muted">
        {summary}. Country shapes: Natural Earth (public domain) via world-atlas.
      </figcaption>
      {/* the keyboard and screen-reader way to the same numbers */}
      {map.countries.length > 0 && (
        <details class="map-table">
          <summary>Countries as a table</summary>
          <table>
            <thead>
              <tr>
                <th scope="col">Country</th>
                <th scope="col">Conversions</th>
              </tr>
            </thead>
            <tbody>
              {map.countries.map((c) => (
                <tr key={c.code}>
                  <th scope="row">{c.name}</th>
                  <td>
                    {formatNumber(c.count)}
                    {share(c.count)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      )}
    </figure>
  );
}

/** Matching conversions per UTC day over the last 30 days, as bars. */
export function DailyChart({ days }: { days: ConversionMap["days"] }) {
  const max = Math.max(1, ...days.map((d) => d.count));
  const total = days.reduce((sum, d) => sum + d.count, 0);
  const width = 300;
  const height = 60;
  const bar = width / days.length;
  return (
    <figure class="daily">
      <figcaption>
        <strong>{formatNumber(total)}</strong> <span class="muted">conversions in the last {days.length} days (UTC), busiest day {formatNumber(max === 1 && total === 0 ? 0 : max)}</span>
      </figcaption>
      <svg viewBox={`0 0 ${width} ${height + 1}`} preserveAspectRatio="none" role="img" aria-label={`Conversions per day: ${days.map((d) => `${d.day} ${d.count}`).join(", ")}`} data-testid="daily-chart">
        {days.map((d, i) => {
          const h = d.count ? Math.max(1.5, (d.count / max) * height) : 0;
          return (
            <rect key={d.day} x={i * bar + 1} y={height - h} width={bar - 2} height={h} class="day-bar">
              <title>{`${d.day}: ${formatNumber(d.count)}`}</title>
            </rect>
          );
        })}
        <line x1="0" x2={width} y1={height + 0.5} y2={height + 0.5} class="axis" />
      </svg>
      <div class="ticks muted" aria-hidden="true">
        <span>{days[0]?.day}</span>
        <span>{days.at(-1)?.day}</span>
      </div>
    </figure>
  );
}
