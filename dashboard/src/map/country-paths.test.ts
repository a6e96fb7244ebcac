import { describe, expect, it } from "vitest";
import topology from "world-atlas/countries-110m.json" with { type: "json" };
import type { Topology } from "topojson-specification";
import { countryPaths, project, MAP_VIEWBOX } from "./country-paths.js";

describe("countryPaths", () => {
  const paths = countryPaths(topology as unknown as Topology);

  it("draws every country but Antarctica inside the view box", () => {
    expect(paths.length).toBeGreaterThan(170);
    expect(paths.find((p) => p.name === "Antarctica")).toBeUndefined();
    const gb = paths.find((p) => p.id === "826")!;
    expect(gb.name).toBe("United Kingdom");
    const numbers = gb.d.match(/-?\d+(\.\d+)?/g)!.map(Number);
    const xs = numbers.filter((_, i) => i % 2 === 0);
    const ys = numbers.filter((_, i) => i % 2 === 1);
    // Great Britain spans roughly 8°W..2°E, 50°N..59°N
    expect(Math.min(...xs)).toBeGreaterThan(180 - 9);
    expect(Math.max(...xs)).toBeLessThan(180 + 3);
    expect(Math.min(...ys)).toBeGreaterThan(MAP_VIEWBOX.north - 61);
    expect(Math.max(...ys)).toBeLessThan(MAP_VIEWBOX.north - 49);
  });

  it("draws no edge across the map: rings over the antimeridian stay in one piece", () => {
    for (const path of paths) {
      for (const ring of path.d.split("Z").filter(Boolean)) {
        const xs = ring.match(/[ML](-?[\d.]+) /g)!.map((m) => Number(m.slice(1)));
        for (let i = 1; i < xs.length; i++) expect(Math.abs(xs[i]! - xs[i - 1]!), path.name).toBeLessThan(180);
      }
    }
  });

  it("projects coordinates onto the same plane", () => {
    expect(project(0, 0)).toEqual({ x: 180, y: 84 });
    expect(project(-180, 84)).toEqual({ x: 0, y: 0 });
    expect(project(180, -60)).toEqual({ x: 360, y: 144 });
  });
});
