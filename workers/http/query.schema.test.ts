import { describe, expect, it } from "vitest";
import { containsPattern } from "./query.schema";

describe("containsPattern", () => {
  it("RUN-009 / UI-CONV: a title search's %, _ and backslash are taken literally", () => {
    expect(containsPattern("plan")).toBe("%plan%");
    expect(containsPattern("50%_off")).toBe("%50\\%\\_off%");
    expect(containsPattern("a\\b")).toBe("%a\\\\b%");
  });
});
