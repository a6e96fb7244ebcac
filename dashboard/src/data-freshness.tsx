/**
 * Read-only: the geolocation data the server answers from, with its age and whether it is stale
 * (from GET /healthz, docs/data.md "Freshness"). Updating is `ipatlas data update` or the schedule.
 */
import { useEffect, useState } from "preact/hooks";
import { api } from "./api.js";
import type { HealthResponse } from "../../lib/schemas/api.js";

export function DataFreshness() {
  const [health, setHealth] = useState<HealthResponse | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    api.health().then(setHealth, () => setFailed(true));
  }, []);
  if (failed) return <p class="muted">Data freshness is unavailable.</p>;
  if (!health) return null;
  return (
    <section aria-labelledby="data-heading">
      <h2 id="data-heading">
        Geolocation data {health.stale && <span class="badge danger">stale</span>}
      </h2>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Database</th>
              <th scope="col">Source</th>
              <th scope="col">Built</th>
              <th scope="col">Age</th>
            </tr>
          </thead>
          <tbody>
            {health.databases.map((db) => (
              <tr key={db.name}>
                <td data-label="Database">{db.name}</td>
                <td data-label="Source">{db.source}</td>
                <td data-label="Built">{db.buildDate?.slice(0, 10) ?? "unknown"}</td>
                <td data-label="Age">
                  {db.ageDays === null ? "unknown" : days(db.ageDays)}
                  {db.stale && <span class="badge danger">stale</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p class="muted">
        Stale after {days(health.maxAgeDays)}. Updates: {health.update.everySeconds === null ? "off" : `every ${formatHours(health.update.everySeconds)}`}
        {", last check "}
        {health.update.lastCheckAt ? `${health.update.lastCheckAt.slice(0, 16).replace("T", " ")} UTC${health.update.lastCheckOk === false ? " (failed)" : ""}` : "never"}.
      </p>
    </section>
  );
}

const days = (n: number) => `${n} day${n === 1 ? "" : "s"}`;

function formatHours(seconds: number): string {
  return seconds % 3600 === 0 ? `${seconds / 3600} h` : `${Math.round(seconds / 60)} min`;
}
