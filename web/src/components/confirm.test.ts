import { describe, expect, it } from "vitest";
import { gerund } from "./confirm";

describe("the confirmation's label", () => {
  it("UI-025: a confirmation names its action in the -ing form, whatever the verb (Remove all scripts, Reset home, Delete)", () => {
    expect(["Delete", "Revoke", "Remove", "Reset", "Disconnect", "Submit", "Free"].map(gerund)).toEqual([
      "deleting",
      "revoking",
      "removing",
      "resetting",
      "disconnecting",
      "submitting",
      "freeing",
    ]);
  });
});
