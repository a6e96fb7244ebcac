import { describe, expect, it } from "vitest";
import { splitCsvLine } from "./csv-line.js";

describe("splitCsvLine", () => {
  it("splits plain fields", () => {
    expect(splitCsvLine("16777216,16777471,13335,Cloudflare")).toEqual(["16777216", "16777471", "13335", "Cloudflare"]);
  });
  it("keeps commas and doubled quotes inside quoted fields", () => {
    expect(splitCsvLine('1,2,13335,"Cloudflare, Inc."')).toEqual(["1", "2", "13335", "Cloudflare, Inc."]);
    expect(splitCsvLine('1,2,3,"The ""Best"" ISP, Ltd"')).toEqual(["1", "2", "3", 'The "Best" ISP, Ltd']);
  });
  it("keeps empty fields", () => {
    expect(splitCsvLine("1,2,,")).toEqual(["1", "2", "", ""]);
  });
});
