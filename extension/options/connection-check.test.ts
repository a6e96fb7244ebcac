import { describe, expect, it } from "vitest";
import { checkFields, registerCommand } from "./connection-check.js";

describe("checkFields", () => {
  it("says what is missing or wrong before sending anything", () => {
    expect(checkFields("", "k")).toMatch(/Enter the Server URL/);
    expect(checkFields("geo example", "k")).toMatch(/not a valid URL/);
    expect(checkFields("ftp://geo.example.com", "k")).toMatch(/http:\/\/ or https:\/\//);
    expect(checkFields("https://geo.example.com", " ")).toMatch(/Enter an API key/);
    expect(checkFields("https://geo.example.com", "ipa_pk_x")).toBeNull();
  });
});

describe("registerCommand", () => {
  it("is the CLI line for the extension's origin", () => {
    expect(registerCommand("chrome-extension://abcdefghijklmnopabcdefghijklmnop")).toBe(
      "ipatlas website add --project <PROJECT_ID> --origin chrome-extension://abcdefghijklmnopabcdefghijklmnop",
    );
  });
});
