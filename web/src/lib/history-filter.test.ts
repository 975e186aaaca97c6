import { describe, expect, it } from "vitest";
import { filterQuery, historyFilter } from "./history-filter";

describe("history filter in the address", () => {
  it("UI-CONV: reads back what it writes; unknown values read as all", () => {
    const filter = { kind: "direct", status: "completed", q: "50% plan" };
    expect(historyFilter(filterQuery(filter))).toEqual(filter);
    expect(filterQuery({ kind: "", status: "", q: "  " })).toBe("");
    expect(historyFilter("?status=failed&kind=task")).toEqual({ kind: "", status: "", q: "" });
  });
});
