import { describe, expect, it } from "vitest";
import { taggedAgents } from "./mentions";

const agents = [
  { id: "1", name: "Scout" },
  { id: "2", name: "Ann" },
  { id: "3", name: "Ann Lee" },
  { id: "4", name: "Scouter" },
];

describe("@Name tags", () => {
  it("OP-GROUP-2: @Name tags the agent of that name, case-insensitive, once however often it appears", () => {
    expect(taggedAgents("@scout look, @SCOUT again", agents)).toEqual(["1"]);
    expect(taggedAgents("thanks @Scout!", agents)).toEqual(["1"]);
  });

  it("OP-GROUP-2: the longest name wins and a longer word is not a tag of a shorter name", () => {
    expect(taggedAgents("@Ann Lee please", agents)).toEqual(["3"]);
    expect(taggedAgents("@Ann please", agents)).toEqual(["2"]);
    expect(taggedAgents("@Scouter and @Scoutx", agents)).toEqual(["4"]);
  });

  it("OP-GROUP-2: an e-mail address or an unknown name tags nobody", () => {
    expect(taggedAgents("mail scout@scout.dev or @nobody", agents)).toEqual([]);
  });
});
