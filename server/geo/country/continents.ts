/** The seven continents as MaxMind and GeoNames name them (docs/api.md#the-ip-object). */
export interface ContinentFacts {
  code: string;
  name: string;
  geonameId: number;
}

export const CONTINENTS: ReadonlyMap<string, ContinentFacts> = new Map(
  (
    [
      ["AF", "Africa", 6255146],
      ["AS", "Asia", 6255147],
      ["EU", "Europe", 6255148],
      ["NA", "North America", 6255149],
      ["SA", "South America", 6255150],
      ["OC", "Oceania", 6255151],
      ["AN", "Antarctica", 6255152],
    ] as const
  ).map(([code, name, geonameId]) => [code, { code, name, geonameId }]),
);
